# cython: boundscheck=False, wraparound=False, cdivision=True
"""The kernel of fn.roi_random_crop: the window starts of a whole batch in one nogil call.

Per sample i and axis d, with the ROI [start, end) and the crop extent c: the start's range is
[start, end - c] when the ROI is larger than the window, else [end - c, start], clamped to
[0, shape - c] when the input shape is known; the start is lo + min(floor(u * (hi - lo + 1)),
hi - lo), u the sample's draw d (`Workspace.uniform_flat`'s number: Philox block d // 2 of the
sample's stream 0), in float64 as the NumPy formulation computed it.  With a shape, the crops
larger than the input are looked for first, over the whole batch, then the ROIs outside it; the
first (sample, axis) found is returned for the operator to raise, and nothing is written.
Argument arrays have one row per sample, or one row for every sample (a constant).
"""
from libc.math cimport floor
from libc.stdint cimport int64_t, uint32_t, uint64_t


cdef extern from "philox_blocks.h" nogil:
    void dali_philox_detect()
    void dali_philox_one(uint64_t key, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                         uint32_t* out)

dali_philox_detect()

cdef enum:                               # `window_starts`' errors
    _CROP_TOO_LARGE = 1
    _ROI_OUTSIDE = 2

CROP_TOO_LARGE, ROI_OUTSIDE = _CROP_TOO_LARGE, _ROI_OUTSIDE


cdef inline Py_ssize_t _row(const int64_t[:, :] a, Py_ssize_t i) noexcept nogil:
    return i if a.shape[0] > 1 else 0


cdef int _check(const int64_t[:, :] a, str name, Py_ssize_t n, Py_ssize_t ndim) except -1:
    if (a.shape[0] != 1 and a.shape[0] != n) or a.shape[1] != ndim:
        raise ValueError(f"{name} must have 1 or {n} rows of {ndim} values")
    return 0


cdef inline int64_t _end(const int64_t[:, :] start, const int64_t[:, :] end, bint end_is_shape,
                         Py_ssize_t i, Py_ssize_t d) noexcept nogil:
    return end[_row(end, i), d] + (start[_row(start, i), d] if end_is_shape else 0)


cdef int _first_error(const int64_t[:, :] crop, const int64_t[:, :] start,
                      const int64_t[:, :] end, bint end_is_shape, const int64_t[:, :] size,
                      Py_ssize_t* at) noexcept nogil:
    """The batch's first crop larger than the input, else its first ROI outside the input
    (the sample and axis into `at`, which holds the number of samples), else 0."""
    cdef Py_ssize_t i, d, n = at[0]
    for i in range(n):
        for d in range(crop.shape[1]):
            if size[_row(size, i), d] < crop[_row(crop, i), d]:
                at[0], at[1] = i, d
                return _CROP_TOO_LARGE
    for i in range(n):
        for d in range(crop.shape[1]):
            if start[_row(start, i), d] < 0 or \
                    size[_row(size, i), d] < _end(start, end, end_is_shape, i, d):
                at[0], at[1] = i, d
                return _ROI_OUTSIDE
    return 0


def window_starts(uint64_t key, const int64_t[::1] sample_ids, const int64_t[:, :] crop,
                  const int64_t[:, :] start, const int64_t[:, :] end, bint end_is_shape,
                  shape, int64_t[:, ::1] out):
    """Write every sample's window start into `out` (n, ndim), or return the first error.

    Parameters
    ----------
    key : the Philox key (`Workspace.random_key`)
    sample_ids : int64 (n,)
    crop, start, end : int64 (n or 1, ndim)
        The crop extents, the ROI starts and the ROI ends (or, with `end_is_shape`, extents).
    shape : int64 (n or 1, ndim) or None
        The input shape, when known.

    Returns
    -------
    (0, -1, -1), or (CROP_TOO_LARGE or ROI_OUTSIDE, sample, axis).
    """
    cdef Py_ssize_t n = sample_ids.shape[0], ndim = out.shape[1], i, d
    cdef Py_ssize_t at[2]
    cdef const int64_t[:, :] size
    cdef int error
    _check(crop, "crop", n, ndim)
    _check(start, "start", n, ndim)
    _check(end, "end", n, ndim)
    if out.shape[0] != n:
        raise ValueError(f"out must have {n} rows")
    cdef bint bounded = shape is not None
    if bounded:
        size = shape
        _check(size, "shape", n, ndim)
        at[0] = n
        with nogil:
            error = _first_error(crop, start, end, end_is_shape, size, at)
        if error:
            return error, at[0], at[1]
    cdef int64_t c, lo, hi, b, e, s = 0, span
    cdef uint32_t words[4]
    cdef double u
    with nogil:
        for i in range(n):
            for d in range(ndim):
                c = crop[_row(crop, i), d]
                b = start[_row(start, i), d]
                e = _end(start, end, end_is_shape, i, d)
                lo, hi = (b, e - c) if e - b > c else (e - c, b)
                if bounded:
                    s = size[_row(size, i), d] - c
                    lo, hi = min(max(lo, 0), s), min(max(hi, 0), s)
                if d % 2 == 0:
                    dali_philox_one(key, <uint32_t>sample_ids[i],
                                    <uint32_t>(sample_ids[i] >> 32), 0, <uint32_t>(d // 2),
                                    words)
                u = ((((<uint64_t>words[2 * (d % 2)]) << 32) | words[2 * (d % 2) + 1]) >> 11) \
                    * (1.0 / 9007199254740992.0)
                span = hi - lo
                out[i, d] = lo + min(<int64_t>floor(u * <double>(span + 1)), span)
    return 0, -1, -1
