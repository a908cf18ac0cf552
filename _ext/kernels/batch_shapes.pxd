# Sample sizes from a batch's (num_samples, ndim) int64 shape array, for the checks the batch
# kernels make before they run (join, onehot, fill, gather): typed loops, as NumPy's
# reductions cost more than the kernels themselves on batches of small samples.
from libc.stdint cimport int64_t


cdef inline int64_t volume(const int64_t[:, ::1] shapes, Py_ssize_t i) noexcept nogil:
    """The number of elements of sample i."""
    cdef int64_t v = 1
    cdef Py_ssize_t d
    for d in range(shapes.shape[1]):
        v *= shapes[i, d]
    return v


cdef inline void sample_bytes(const int64_t[:, ::1] shapes, int64_t itemsize,
                              int64_t[::1] out) noexcept nogil:
    """out[i] = the size in bytes of sample i."""
    cdef Py_ssize_t i
    for i in range(shapes.shape[0]):
        out[i] = volume(shapes, i) * itemsize
