# The first byte of every sample of a source batch, for kernels that read contiguous and
# per-sample batches (an external_source's arrays) alike: copying a per-sample batch into one
# block first (`BatchStorage.contiguous`) costs a NumPy call per sample, more than the kernels
# take on batches of small samples.
cimport numpy as cnp
from libc.stdint cimport int64_t

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport job_array


cdef inline const char** sample_data(BatchStorage src, list keep) except NULL:
    """Sample i's first byte, for every i: in the block of contiguous storage, else in the
    sample's array (a C-contiguous copy of it where it is not one).  The pointers stay valid
    while `keep` (and `src`) live."""
    cdef Py_ssize_t i, n = src.num_samples
    cdef const char** at = <const char**>job_array(n, sizeof(char*), keep)
    cdef const int64_t[::1] offsets
    cdef cnp.ndarray a
    if src.base is not None:
        offsets = src.offsets
        for i in range(n):
            at[i] = src.data + offsets[i]
        return at
    views = list(src.samples())
    keep.append(views)
    for i in range(n):
        a = views[i]
        if not cnp.PyArray_IS_C_CONTIGUOUS(a):
            a = views[i] = cnp.PyArray_GETCONTIGUOUS(a)
        at[i] = <const char*>cnp.PyArray_DATA(a)
    return at
