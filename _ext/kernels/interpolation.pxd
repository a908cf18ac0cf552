# Helpers the resampling kernels share (warp.pyx, displace.pyx).  Everything is nogil.


cdef inline Py_ssize_t floor_index(float x, Py_ssize_t n) noexcept nogil:
    """floor(x), limited to [-2, n + 1] so that far-away (or NaN) positions stay outside."""
    cdef Py_ssize_t i
    if not (x >= -2):
        return -2
    if x >= n + 1:
        return n + 1
    i = <Py_ssize_t>x          # truncation; x >= -2 here
    return i - 1 if x < i else i
