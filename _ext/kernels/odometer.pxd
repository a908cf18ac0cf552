# Stepping through the positions of a strided array's outer dimensions.


cdef inline void next_index(Py_ssize_t* idx, int n, const Py_ssize_t* shape) noexcept nogil:
    """Advance the multi-index idx[0:n] over extents shape[0:n], last digit fastest (wraps to
    all zeros after the last position)."""
    cdef int d = n - 1
    while d >= 0:
        idx[d] += 1
        if idx[d] < shape[d]:
            return
        idx[d] = 0
        d -= 1
