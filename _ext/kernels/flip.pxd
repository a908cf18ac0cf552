# The flip kernel's C side (flip.h): a window of a sample (the whole sample for a flip)
# described as "reverse some of a few collapsed axes" over bytes, and the copy of one work
# item (a range of its outermost axis).  Any element size; source samples and destination are
# C-contiguous and do not overlap.
from libc.stdint cimport int64_t, uint8_t


cdef extern from "flip.h" nogil:
    enum: DALI_FLIP_MAX_DIMS

    ctypedef struct dali_flip_job:
        const char* src
        char* dst
        int ndim
        int64_t extent[DALI_FLIP_MAX_DIMS]
        int64_t unit
        int64_t src_offset
        int64_t dst_offset
        int64_t lo, hi

    int64_t dali_flip_collapse(int ndim, const int64_t* shape, const int64_t* src_shape,
                               const int64_t* src_anchor, const int64_t* dst_shape,
                               const int64_t* dst_anchor, const uint8_t* flags,
                               int64_t itemsize, dali_flip_job* job)
    void dali_flip_run(const dali_flip_job* job)
