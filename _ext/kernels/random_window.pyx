# cython: boundscheck=False, wraparound=False, cdivision=True
"""The random crop windows of a batch from their draws: the kernel of
dali/ops/_random_window.py (fn.random_resized_crop, the random-crop decoders).

Each sample tries its attempts in order: area target (area_lo + a * (area_hi - area_lo)) *
pixels, w = round(sqrt(target * ratio)), h = round(sqrt(target / ratio)) (at least 1), in
float32 like DALI; the first window that fits the image with its rounded aspect ratio in range
is taken, else the sample's fallback.  The position is uniform over the positions that keep
the window inside.  The aspect ratios' exp stays NumPy's (the caller's): C's expf need not
give its bits; everything else is float32 (and float64 for the rounding and the position)
arithmetic that C does as NumPy does, so the windows are bit for bit those of the NumPy
formulation, in one nogil loop instead of ~50 NumPy calls on small arrays.
"""
from libc.math cimport floor, sqrtf
from libc.stdint cimport int64_t, uint8_t


cdef inline int64_t _round(float x) noexcept nogil:
    """roundf for x >= 0: half away from zero, through float64 as NumPy's formulation."""
    return <int64_t>floor(<double>x + 0.5)


def draw_windows(const int64_t[::1] height, const int64_t[::1] width,
                 const int64_t[::1] fallback_h, const int64_t[::1] fallback_w,
                 const uint8_t[::1] free, const float[::1] pixels,
                 const double[:, ::1] draws, const float[:, ::1] ratio,
                 float area_lo, float area_hi, float ar_lo, float ar_hi,
                 int64_t[:, ::1] out):
    """Write (y, x, h, w) of every sample's window into `out` (n, 4).

    Parameters
    ----------
    height, width : int64 (n,)
        The image sizes.
    fallback_h, fallback_w : int64 (n,)
        The window when no attempt succeeds (or none may: `free` false).
    free : uint8 (n,)
        Whether the sample's attempts count.
    pixels : float32 (n,)
        height * width in float32.
    draws : float64 (n, 2 * attempts + 2)
        Uniform draws: (area, aspect ratio) per attempt, then (y, x) of the position.
    ratio : float32 (n, attempts)
        The aspect ratio of each attempt (exp of the log-uniform draw).
    """
    cdef Py_ssize_t n = height.shape[0], attempts = ratio.shape[1], i, k
    cdef Py_ssize_t last = draws.shape[1] - 2
    cdef float span = area_hi - area_lo, target, aspect
    cdef int64_t h, w, ah, aw
    if width.shape[0] != n or fallback_h.shape[0] != n or fallback_w.shape[0] != n or \
            free.shape[0] != n or pixels.shape[0] != n or draws.shape[0] != n or \
            ratio.shape[0] != n or out.shape[0] != n or out.shape[1] != 4 or \
            draws.shape[1] != 2 * attempts + 2:
        raise ValueError("the arrays must describe the same samples and attempts")
    with nogil:
        for i in range(n):
            h, w = fallback_h[i], fallback_w[i]
            if free[i]:
                for k in range(attempts):
                    target = (area_lo + <float>draws[i, 2 * k] * span) * pixels[i]
                    aw = max(1, _round(sqrtf(target * ratio[i, k])))
                    ah = max(1, _round(sqrtf(target / ratio[i, k])))
                    aspect = <float>aw / <float>ah
                    if aw <= width[i] and ah <= height[i] and ar_lo <= aspect <= ar_hi:
                        h, w = ah, aw
                        break
            out[i, 2], out[i, 3] = h, w
            out[i, 0] = min(<int64_t>(draws[i, last] * <double>(height[i] - h + 1)),
                            height[i] - h)
            out[i, 1] = min(<int64_t>(draws[i, last + 1] * <double>(width[i] - w + 1)),
                            width[i] - w)
