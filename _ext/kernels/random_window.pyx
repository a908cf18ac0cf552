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
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

from dali._ext.thread_pool cimport job_array


cdef extern from "philox_blocks.h" nogil:
    void dali_philox_detect()
    void dali_philox_blocks(uint64_t key, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t first,
                            int64_t n, uint32_t* out)

dali_philox_detect()


cdef inline double _u01(uint32_t hi, uint32_t lo) noexcept nogil:
    """rng.uniform's double of two Philox words: their top 53 bits times 2^-53."""
    return ((((<uint64_t>hi) << 32) | lo) >> 11) * (1.0 / 9007199254740992.0)


def draw_uniforms(uint64_t key, const int64_t[::1] sample_ids, uint32_t stream, float log_lo,
                  float log_span, double[:, ::1] draws, float[:, ::1] ratio_args):
    """The draws of a batch's windows and the exponents of their aspect ratios.

    `draws[i]` receives `rng.uniform`'s numbers of sample i (the same doubles: two per Philox
    block (sample id, stream, block), its blocks computed in runs); `ratio_args[i, k]` receives
    log_lo + float32(draws[i, 2k + 1]) * log_span, in float32 as the NumPy formulation computes
    it, for the caller's np.exp.

    Parameters
    ----------
    key : the Philox key (`Workspace.random_key`)
    sample_ids : int64 (n,)
    stream : the stream of the draws
    log_lo, log_span : log of the smallest aspect ratio, and log of the largest minus it
    draws : float64 (n, 2 * attempts + 2), written
    ratio_args : float32 (n, attempts), written
    """
    cdef Py_ssize_t n = sample_ids.shape[0], attempts = ratio_args.shape[1], i, b, k
    cdef Py_ssize_t blocks = attempts + 1
    if draws.shape[0] != n or ratio_args.shape[0] != n or draws.shape[1] != 2 * blocks:
        raise ValueError("the arrays must describe the same samples and attempts")
    keep = []
    cdef uint32_t* words = <uint32_t*>job_array(4 * blocks, sizeof(uint32_t), keep)
    cdef int64_t sid
    with nogil:
        for i in range(n):
            sid = sample_ids[i]
            dali_philox_blocks(key, <uint32_t>sid, <uint32_t>(sid >> 32), stream, 0, blocks,
                               words)
            for b in range(blocks):
                draws[i, 2 * b] = _u01(words[4 * b], words[4 * b + 1])
                draws[i, 2 * b + 1] = _u01(words[4 * b + 2], words[4 * b + 3])
            for k in range(attempts):
                ratio_args[i, k] = log_lo + <float>draws[i, 2 * k + 1] * log_span


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
