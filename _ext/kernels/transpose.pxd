# Permuting the dimensions of C-contiguous samples (the algorithm: transpose.h).
#
# `dali_tr_collapse` describes one sample's transpose of `esize`-byte elements (the output
# dimensions without extents of 1, merged where they are neighbours in the input too, each
# with its input stride) and returns its element count; `dali_tr_split_extent` is the extent
# of the range work on it can be split along, and `dali_tr_run` moves the part [lo, hi) of
# that range.  The kernels never
# allocate; src and dst must not overlap; ndim is below DALI_TR_MAX_DIMS.
from libc.stdint cimport int64_t


cdef extern from "transpose.h" nogil:
    enum:
        DALI_TR_MAX_DIMS

    ctypedef struct dali_tr_desc:
        int n
        int64_t esize
        int64_t shape[DALI_TR_MAX_DIMS]
        int64_t stride[DALI_TR_MAX_DIMS]

    int64_t dali_tr_collapse(int ndim, const int64_t* in_shape, const int* perm,
                             int64_t esize, dali_tr_desc* d)
    int64_t dali_tr_split_extent(const dali_tr_desc* d)
    void dali_tr_run(const dali_tr_desc* d, const void* src, void* dst, int64_t lo,
                     int64_t hi)
