# cython: boundscheck=False, wraparound=False, cdivision=True
"""The random crop windows of a batch: the kernel of dali/ops/_random_window.py
(fn.random_resized_crop, fn.random_crop_generator, the random-crop decoders).

Each sample tries its attempts in order: area target (area_lo + a * (area_hi - area_lo)) *
pixels, w = round(sqrt(target * ratio)), h = round(sqrt(target / ratio)) (at least 1), in
float32 like DALI; the first window that fits the image with its rounded aspect ratio in range
is taken, else the sample's fallback.  The position is uniform over the positions that keep
the window inside.  The aspect ratios' exp stays NumPy's (np.exp, called between the draws and
the attempts): C's expf need not give its bits; everything else is float32 (and float64 for the
rounding and the position) arithmetic that C does as NumPy does, so the windows are bit for bit
those of the NumPy formulation.  `random_windows` does a batch in one call: the draws (the
numbers of `rng.uniform`, a block of every sample's stream at once: philox_lanes.h), the
exponents, np.exp, the attempts;
what the windows take from the image sizes alone is a `SizeTerms`, kept while the sizes repeat.
"""
cimport numpy as cnp
import numpy as np

from libc.math cimport floor, sqrtf
from libc.stdint cimport INT64_MIN, int32_t, int64_t, uint8_t, uint32_t, uint64_t

from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport job_array

cnp.import_array()


cdef extern from "philox_lanes.h" nogil:
    void dali_philox_detect()
    int dali_philox_avx2(int enable)
    void dali_philox_lanes(uint64_t key, const uint32_t* a0, const uint32_t* a1, uint32_t a2,
                           uint32_t a3, int64_t n, uint32_t* out)

dali_philox_detect()


def philox_avx2(enable=None):
    """Whether the draws take the AVX2 path of philox_lanes.h; `enable` switches it (on only
    where the CPU has AVX2).  For tests."""
    return bool(dali_philox_avx2(-1 if enable is None else int(bool(enable))))


cdef class SizeTerms:
    """What the windows of a batch take from its image sizes alone (int64 heights, widths and
    fallback windows, uint8 `free`: whether the sample's attempts count, float32 pixels): the
    arrays, checked once, and their data."""
    cdef readonly tuple arrays
    cdef readonly Py_ssize_t n
    cdef const int64_t* height
    cdef const int64_t* width
    cdef const int64_t* fallback_h
    cdef const int64_t* fallback_w
    cdef const uint8_t* free
    cdef const float* pixels

    def __init__(self, height, width, fallback_h, fallback_w, free, pixels):
        arrays = []
        for a, dtype in ((height, np.int64), (width, np.int64), (fallback_h, np.int64),
                         (fallback_w, np.int64), (free, np.uint8), (pixels, np.float32)):
            a = np.ascontiguousarray(a, dtype)
            if a.ndim != 1 or len(a) != len(height):
                raise ValueError("the size terms must be 1-D arrays of one length")
            arrays.append(a)
        self.arrays = tuple(arrays)
        self.n = len(height)
        self.height = <const int64_t*>cnp.PyArray_DATA(arrays[0])
        self.width = <const int64_t*>cnp.PyArray_DATA(arrays[1])
        self.fallback_h = <const int64_t*>cnp.PyArray_DATA(arrays[2])
        self.fallback_w = <const int64_t*>cnp.PyArray_DATA(arrays[3])
        self.free = <const uint8_t*>cnp.PyArray_DATA(arrays[4])
        self.pixels = <const float*>cnp.PyArray_DATA(arrays[5])


cdef inline int64_t _trunc(float x) noexcept nogil:
    """float32 to int64 as NumPy's astype on x86-64: toward zero, and INT64_MIN (the
    conversion's "integer indefinite") for NaN and values out of range."""
    if x >= -9223372036854775808.0 and x < 9223372036854775808.0:
        return <int64_t>x
    return INT64_MIN


cdef inline int64_t _mul(int64_t a, int64_t b) noexcept nogil:
    """a * b wrapping like NumPy's int64 product."""
    return <int64_t>(<uint64_t>a * <uint64_t>b)


def size_terms(heights, widths, float area_lo, float area_hi, float ar_lo, float ar_hi):
    """The SizeTerms of images of these sizes: the limits of the widest and tallest windows,
    whether attempts may succeed (else the widest or tallest window is taken), the fallback
    window (the whole image narrowed to the aspect ratio range and shrunk to at most the largest
    area) and the pixels, in float32 with the operations of the NumPy formulation."""
    height = np.ascontiguousarray(heights, np.int64)
    width = np.ascontiguousarray(widths, np.int64)
    cdef Py_ssize_t n = len(height), i
    if height.ndim != 1 or width.shape != height.shape:
        raise ValueError("heights and widths must be 1-D arrays of one length")
    fallback_h, fallback_w = np.empty(n, np.int64), np.empty(n, np.int64)
    free_arr, pixels_arr = np.empty(n, np.uint8), np.empty(n, np.float32)
    cdef const int64_t[::1] hh = height, ww = width
    cdef int64_t[::1] fh = fallback_h, fw = fallback_w
    cdef uint8_t[::1] free = free_arr
    cdef float[::1] pixels = pixels_arr
    cdef int64_t H, W, max_w, max_h, h, w
    cdef float hf, wf, min_area, ratio, scale, inv_lo = <float>1 / ar_lo
    cdef bint wide, tall
    with nogil:
        for i in range(n):
            H, W = hh[i], ww[i]
            hf, wf = <float>H, <float>W
            min_area = wf * hf * area_lo
            max_w = max(1, _trunc(hf * ar_hi))
            max_h = max(1, _trunc(wf * inv_lo))
            wide = <float>_mul(H, max_w) < min_area          # even the widest is too small
            tall = not wide and <float>_mul(W, max_h) < min_area
            ratio = wf / hf
            h = max_h if ratio < ar_lo else H
            w = max_w if ratio > ar_hi else W
            scale = area_hi * wf * hf / <float>_mul(h, w)
            scale = sqrtf(scale if not scale > 1 else 1)
            h = max(1, _trunc(<float>h * scale))
            w = max(1, _trunc(<float>w * scale))
            fh[i] = min(H if wide else max_h if tall else h, H)
            fw[i] = min(max_w if wide else W if tall else w, W)
            free[i] = not (wide or tall)
            pixels[i] = <float>_mul(H, W)
    return SizeTerms(height, width, fallback_h, fallback_w, free_arr, pixels_arr)


cdef struct Out:
    char* anchor            # row i of (y, x) at anchor + i * anchor_row
    char* shape             # row i of (h, w)
    Py_ssize_t anchor_row, shape_row
    bint wide               # int64 elements, else int32


cdef int _out(Out* o, anchor, shape, Py_ssize_t n) except -1:
    """Point `o` at the (n, 2) int32 or int64 arrays `anchor` and `shape` (rows may be apart,
    their two values adjacent; NumPy gives empty arrays zero strides)."""
    cdef cnp.ndarray a = anchor, s = shape
    cdef int t = cnp.PyArray_TYPE(a)
    for arr in (a, s):
        if cnp.PyArray_NDIM(arr) != 2 or cnp.PyArray_DIM(arr, 0) != n or \
                cnp.PyArray_DIM(arr, 1) != 2 or cnp.PyArray_TYPE(arr) != t or \
                (t != cnp.NPY_INT32 and t != cnp.NPY_INT64) or \
                (n and cnp.PyArray_STRIDE(arr, 1) != cnp.PyArray_ITEMSIZE(arr)) or \
                not cnp.PyArray_ISWRITEABLE(arr):
            raise ValueError(f"anchor and shape must be writable (n, 2) arrays of one type, "
                             f"int32 or int64, n = {n}")
    o.anchor, o.shape = <char*>cnp.PyArray_DATA(a), <char*>cnp.PyArray_DATA(s)
    o.anchor_row, o.shape_row = cnp.PyArray_STRIDE(a, 0), cnp.PyArray_STRIDE(s, 0)
    o.wide = t == cnp.NPY_INT64
    return 0


cdef inline void _store(char* row, bint wide, int64_t a, int64_t b) noexcept nogil:
    if wide:
        (<int64_t*>row)[0], (<int64_t*>row)[1] = a, b
    else:
        (<int32_t*>row)[0], (<int32_t*>row)[1] = <int32_t>a, <int32_t>b


cdef inline double _u01(uint32_t hi, uint32_t lo) noexcept nogil:
    """rng.uniform's double of two Philox words: their top 53 bits times 2^-53."""
    return ((((<uint64_t>hi) << 32) | lo) >> 11) * (1.0 / 9007199254740992.0)


cdef void _draw(uint64_t key, const int64_t[::1] sample_ids, uint32_t stream, float log_lo,
                float log_span, double[:, ::1] draws, float[:, ::1] ratio_args,
                uint32_t* scratch) noexcept nogil:
    """Block b of every sample's stream, for b in turn (`scratch`: 6 words a sample)."""
    cdef Py_ssize_t n = sample_ids.shape[0], attempts = ratio_args.shape[1], i, b
    cdef uint32_t* words = scratch + 2 * n
    for i in range(n):
        scratch[i] = <uint32_t>sample_ids[i]
        scratch[n + i] = <uint32_t>(sample_ids[i] >> 32)
    for b in range(attempts + 1):
        dali_philox_lanes(key, scratch, scratch + n, stream, <uint32_t>b, n, words)
        for i in range(n):
            draws[i, 2 * b] = _u01(words[4 * i], words[4 * i + 1])
            draws[i, 2 * b + 1] = _u01(words[4 * i + 2], words[4 * i + 3])
            if b < attempts:
                ratio_args[i, b] = log_lo + <float>draws[i, 2 * b + 1] * log_span


def draw_uniforms(uint64_t key, const int64_t[::1] sample_ids, uint32_t stream, float log_lo,
                  float log_span, double[:, ::1] draws, float[:, ::1] ratio_args):
    """The draws of a batch's windows and the exponents of their aspect ratios.

    `draws[i]` receives `rng.uniform`'s numbers of sample i (the same doubles: two per Philox
    block (sample id, stream, block), each block of all samples at once); `ratio_args[i, k]`
    receives log_lo + float32(draws[i, 2k + 1]) * log_span, in float32 as the NumPy
    formulation computes it, for np.exp.

    Parameters
    ----------
    key : the Philox key (`Workspace.random_key`)
    sample_ids : int64 (n,)
    stream : the stream of the draws
    log_lo, log_span : log of the smallest aspect ratio, and log of the largest minus it
    draws : float64 (n, 2 * attempts + 2), written
    ratio_args : float32 (n, attempts), written
    """
    cdef Py_ssize_t n = sample_ids.shape[0]
    if draws.shape[0] != n or ratio_args.shape[0] != n or \
            draws.shape[1] != 2 * ratio_args.shape[1] + 2:
        raise ValueError("the arrays must describe the same samples and attempts")
    keep = []
    cdef uint32_t* scratch = <uint32_t*>job_array(6 * n, sizeof(uint32_t), keep)
    with nogil:
        _draw(key, sample_ids, stream, log_lo, log_span, draws, ratio_args, scratch)


cdef inline int64_t _round(float x) noexcept nogil:
    """roundf for x >= 0: half away from zero, through float64 as NumPy's formulation."""
    return <int64_t>floor(<double>x + 0.5)


cdef void _windows(SizeTerms t, const double[:, ::1] draws, const float[:, ::1] ratio,
                   float area_lo, float area_hi, float ar_lo, float ar_hi,
                   Out* o) noexcept nogil:
    cdef Py_ssize_t attempts = ratio.shape[1], last = draws.shape[1] - 2, i, k
    cdef float span = area_hi - area_lo, target, aspect
    cdef int64_t h, w, ah, aw
    for i in range(t.n):
        h, w = t.fallback_h[i], t.fallback_w[i]
        if t.free[i]:
            for k in range(attempts):
                target = (area_lo + <float>draws[i, 2 * k] * span) * t.pixels[i]
                aw = max(1, _round(sqrtf(target * ratio[i, k])))
                ah = max(1, _round(sqrtf(target / ratio[i, k])))
                aspect = <float>aw / <float>ah
                if aw <= t.width[i] and ah <= t.height[i] and ar_lo <= aspect <= ar_hi:
                    h, w = ah, aw
                    break
        _store(o.shape + i * o.shape_row, o.wide, h, w)
        _store(o.anchor + i * o.anchor_row, o.wide,
               min(<int64_t>(draws[i, last] * <double>(t.height[i] - h + 1)), t.height[i] - h),
               min(<int64_t>(draws[i, last + 1] * <double>(t.width[i] - w + 1)),
                   t.width[i] - w))


def draw_windows(SizeTerms terms, const double[:, ::1] draws, const float[:, ::1] ratio,
                 float area_lo, float area_hi, float ar_lo, float ar_hi, anchor, shape):
    """Write every sample's window, (y, x) into `anchor` and (h, w) into `shape`.

    Parameters
    ----------
    terms : SizeTerms
        The batch's image sizes and what follows from them.
    draws : float64 (n, 2 * attempts + 2)
        Uniform draws: (area, aspect ratio) per attempt, then (y, x) of the position.
    ratio : float32 (n, attempts)
        The aspect ratio of each attempt (exp of the log-uniform draw).
    anchor, shape : (n, 2) int32 or int64 arrays, written
    """
    cdef Py_ssize_t n = terms.n
    cdef Out o
    if draws.shape[0] != n or ratio.shape[0] != n or draws.shape[1] != 2 * ratio.shape[1] + 2:
        raise ValueError("the arrays must describe the same samples and attempts")
    _out(&o, anchor, shape, n)
    with nogil:
        _windows(terms, draws, ratio, area_lo, area_hi, ar_lo, ar_hi, &o)


def random_windows(SizeTerms terms, uint64_t key, const int64_t[::1] sample_ids, int attempts,
                   float area_lo, float area_hi, float ar_lo, float ar_hi, float log_lo,
                   float log_span, anchor, shape):
    """`draw_uniforms` (stream 0), np.exp of the exponents, then `draw_windows`: the windows
    of a batch from its random key and sample ids."""
    cdef Py_ssize_t n = terms.n
    cdef Out o
    if sample_ids.shape[0] != n or attempts < 0:
        raise ValueError("the sample ids must be those of the sizes' samples")
    _out(&o, anchor, shape, n)
    draws_arr = np.empty((n, 2 * attempts + 2), np.float64)
    ratio_arr = np.empty((n, attempts), np.float32)
    cdef double[:, ::1] draws = draws_arr
    cdef float[:, ::1] ratio = ratio_arr
    keep = []
    cdef uint32_t* scratch = <uint32_t*>job_array(6 * n, sizeof(uint32_t), keep)
    with nogil:
        _draw(key, sample_ids, 0, log_lo, log_span, draws, ratio, scratch)
    np.exp(ratio_arr, out=ratio_arr)
    with nogil:
        _windows(terms, draws, ratio, area_lo, area_hi, ar_lo, ar_hi, &o)


def image_sizes(BatchStorage shapes):
    """The (height, width) of a batch of shape tensors: 1-D, of 2 or 3 integers (HW or HWC).

    Returns
    -------
    (-1, int64 (n, 2)), or (the first sample that is no such tensor, None).
    """
    cdef Py_ssize_t n = shapes.num_samples, i
    cdef const int64_t[:, ::1] dims = np.ascontiguousarray(shapes.shapes, np.int64)
    cdef str kind = shapes.dtype.kind
    cdef int size = shapes.dtype.itemsize
    if kind not in ("i", "u") or size not in (1, 2, 4, 8):
        raise ValueError("the shapes must be integers")
    for i in range(n):
        if dims.shape[1] != 1 or (dims[i, 0] != 2 and dims[i, 0] != 3):
            return i, None
    cdef bint signed = kind == "i"
    out = np.empty((n, 2), np.int64)
    cdef int64_t[:, ::1] hw = out
    keep = []
    cdef const char** at = sample_data(shapes, keep)
    with nogil:
        for i in range(n):
            hw[i, 0], hw[i, 1] = _value(at[i], signed, size, 0), _value(at[i], signed, size, 1)
    return -1, out


cdef inline int64_t _value(const char* p, bint signed, int size, Py_ssize_t j) noexcept nogil:
    """Element j of an integer array of `size`-byte elements, as int64 (NumPy's cast)."""
    if size == 1:
        return (<const signed char*>p)[j] if signed else (<const unsigned char*>p)[j]
    if size == 2:
        return (<const short*>p)[j] if signed else (<const unsigned short*>p)[j]
    if size == 4:
        return (<const int32_t*>p)[j] if signed else (<const uint32_t*>p)[j]
    return (<const int64_t*>p)[j]
