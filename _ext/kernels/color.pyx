"""Per-pixel colour kernels: the linear colour transform of fn.color_twist, fn.hsv, fn.hue,
fn.saturation and fn.brightness_contrast, and the colour space conversions of
fn.color_space_conversion.

`linear(src, dst, mat, offset)` maps every pixel (a row of `src`, `cin` channels) to
`mat @ pixel + offset` (`cout` channels), in float32 and summed left to right as DALI's CPU
kernel does, then converts to dst's type (`convert.pxd`).  brightness_contrast is the 1x1 case
on a flat view of the data.

`convert_space(src, dst, conversion, red)` converts uint8 pixels between RGB/BGR, GRAY and
YCbCr (ITU-R BT.601, Y in 16..235 and chroma in 16..240):
* RGB <-> BGR swaps the first and third channel;
* to GRAY uses OpenCV's fixed-point weights (9798, 19235, 3735) / 2**15, rounded;
* GRAY to RGB/BGR replicates the channel;
* RGB -> YCbCr and YCbCr -> RGB use float32 coefficients derived from Kr = 0.299 and
  Kb = 0.114, summed left to right, rounded half away from zero and saturated;
* GRAY <-> YCbCr scale the luma between 0..255 and 16..235 (chroma 128).
`red` is the index of the red channel (0 for RGB, 2 for BGR).  Everything runs without the GIL;
`linear_batch` and `convert_space_batch` run a list of such calls (tiles of the samples of a
batch) on a thread pool in one go, largest first, with no Python per call.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t

from dali._ext.kernels.convert cimport half, load, round_half_away, sat_int, store
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_ELEMENT = 1.0    # the cost estimate (per pixel and channel) the pool gets

ctypedef fused pix_in:
    uint8_t
    int16_t
    int32_t
    float
    half

ctypedef fused pix_out:
    uint8_t
    int16_t
    int32_t
    float
    half

cdef enum Conversion:
    SWAP_RB = 0
    TO_GRAY = 1
    GRAY_TO_RGB = 2
    RGB_TO_YCBCR = 3
    YCBCR_TO_RGB = 4
    YCBCR_TO_GRAY = 5
    GRAY_TO_YCBCR = 6

CONVERSIONS = {"swap_rb": SWAP_RB, "to_gray": TO_GRAY, "gray_to_rgb": GRAY_TO_RGB,
               "rgb_to_ycbcr": RGB_TO_YCBCR, "ycbcr_to_rgb": YCBCR_TO_RGB,
               "ycbcr_to_gray": YCBCR_TO_GRAY, "gray_to_ycbcr": GRAY_TO_YCBCR}
_CHANNELS = {SWAP_RB: (3, 3), TO_GRAY: (3, 1), GRAY_TO_RGB: (1, 3), RGB_TO_YCBCR: (3, 3),
             YCBCR_TO_RGB: (3, 3), YCBCR_TO_GRAY: (3, 1), GRAY_TO_YCBCR: (1, 3)}


cdef void _linear(const pix_in* s, pix_out* d, Py_ssize_t n, int cin, int cout,
                  const float* m, const float* off) noexcept nogil:
    cdef Py_ssize_t p
    cdef int c, k
    cdef float x0, x1, x2, acc
    cdef float m00, m01, m02, m10, m11, m12, m20, m21, m22, o0, o1, o2
    if cin == 3 and cout == 3:
        m00, m01, m02 = m[0], m[1], m[2]
        m10, m11, m12 = m[3], m[4], m[5]
        m20, m21, m22 = m[6], m[7], m[8]
        o0, o1, o2 = off[0], off[1], off[2]
        for p in range(n):
            x0 = load(&s[3 * p])
            x1 = load(&s[3 * p + 1])
            x2 = load(&s[3 * p + 2])
            store(&d[3 * p], m00 * x0 + m01 * x1 + m02 * x2 + o0)
            store(&d[3 * p + 1], m10 * x0 + m11 * x1 + m12 * x2 + o1)
            store(&d[3 * p + 2], m20 * x0 + m21 * x1 + m22 * x2 + o2)
    elif cin == 1 and cout == 1:
        m00, o0 = m[0], off[0]
        for p in range(n):
            store(&d[p], load(&s[p]) * m00 + o0)
    else:
        for p in range(n):
            for c in range(cout):
                acc = 0
                for k in range(cin):
                    acc = acc + m[c * cin + k] * load(&s[p * cin + k])
                store(&d[p * cout + c], acc + off[c])


cdef void _linear_out(const pix_in* s, char* d, int dk, Py_ssize_t n, int cin, int cout,
                      const float* m, const float* off) noexcept nogil:
    if dk == cnp.NPY_UINT8:
        _linear(s, <uint8_t*>d, n, cin, cout, m, off)
    elif dk == cnp.NPY_INT16:
        _linear(s, <int16_t*>d, n, cin, cout, m, off)
    elif dk == cnp.NPY_INT32:
        _linear(s, <int32_t*>d, n, cin, cout, m, off)
    elif dk == cnp.NPY_FLOAT32:
        _linear(s, <float*>d, n, cin, cout, m, off)
    else:
        _linear(s, <half*>d, n, cin, cout, m, off)


cdef void _linear_dispatch(const char* s, int sk, char* d, int dk, Py_ssize_t n, int cin,
                           int cout, const float* m, const float* off) noexcept nogil:
    if sk == cnp.NPY_UINT8:
        _linear_out(<const uint8_t*>s, d, dk, n, cin, cout, m, off)
    elif sk == cnp.NPY_INT16:
        _linear_out(<const int16_t*>s, d, dk, n, cin, cout, m, off)
    elif sk == cnp.NPY_INT32:
        _linear_out(<const int32_t*>s, d, dk, n, cin, cout, m, off)
    elif sk == cnp.NPY_FLOAT32:
        _linear_out(<const float*>s, d, dk, n, cin, cout, m, off)
    else:
        _linear_out(<const half*>s, d, dk, n, cin, cout, m, off)


_TYPES = {np.dtype(t) for t in (np.uint8, np.int16, np.int32, np.float32, np.float16)}


cdef struct Job:
    # one call of `linear` (conversion < 0) or of `convert_space`
    const char* src
    char* dst
    int sk, dk
    Py_ssize_t n
    int cin, cout
    const float* m
    const float* off
    int conversion
    int red


cdef object _linear_job(cnp.ndarray src, cnp.ndarray dst, mat, offset, Job* job):
    """Check `linear`'s arguments and fill `job` (job.n is 0 when there is nothing to do);
    returns what must stay alive while it runs."""
    if src.dtype not in _TYPES or dst.dtype not in _TYPES:
        raise TypeError(f"unsupported types {src.dtype} -> {dst.dtype}")
    if src.ndim != 2 or dst.ndim != 2 or src.shape[0] != dst.shape[0]:
        raise ValueError("src and dst must be (pixels, channels) arrays of the same length")
    if not (src.flags.c_contiguous and dst.flags.c_contiguous):
        raise ValueError("src and dst must be C-contiguous")
    cdef const float[:, ::1] m = np.ascontiguousarray(mat, dtype=np.float32)
    cdef const float[::1] off = np.ascontiguousarray(offset, dtype=np.float32)
    job.cin, job.cout = src.shape[1], dst.shape[1]
    if m.shape[0] != job.cout or m.shape[1] != job.cin or off.shape[0] != job.cout:
        raise ValueError(f"mat must be ({job.cout}, {job.cin}) and offset ({job.cout},)")
    job.n = src.shape[0] if job.cin and job.cout else 0
    job.src = <const char*>cnp.PyArray_DATA(src)
    job.dst = <char*>cnp.PyArray_DATA(dst)
    job.sk, job.dk = cnp.PyArray_TYPE(src), cnp.PyArray_TYPE(dst)
    job.m = &m[0, 0] if m.shape[0] and m.shape[1] else NULL
    job.off = &off[0] if off.shape[0] else NULL
    job.conversion = -1
    return m, off


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* job = (<Job*>ctx) + i
    if job.n == 0:
        return
    if job.conversion < 0:
        _linear_dispatch(job.src, job.sk, job.dst, job.dk, job.n, job.cin, job.cout, job.m,
                         job.off)
    else:
        _convert(<const uint8_t*>job.src, <uint8_t*>job.dst, job.n, job.conversion, job.red,
                 &TO_YCBCR[0, 0], &FROM_YCBCR[0, 0])


cdef _run(ThreadPool pool, Job* jobs, Py_ssize_t n):
    run_largest_first(pool, _run_job, jobs,
                      [jobs[i].n * (jobs[i].cin + jobs[i].cout) for i in range(n)],
                      _NS_PER_ELEMENT)


def linear(cnp.ndarray src, cnp.ndarray dst, mat, offset):
    """dst[p] = mat @ src[p] + offset for every pixel p, converted to dst's type.

    Parameters
    ----------
    src : C-contiguous ndarray (pixels, cin) of uint8, int16, int32, float32 or float16
    dst : C-contiguous ndarray (pixels, cout) of one of those types
    mat : (cout, cin) float32 matrix
    offset : (cout,) float32 vector
    """
    linear_batch(None, [(src, dst, mat, offset)])


def linear_batch(ThreadPool pool, list jobs):
    """`linear(src, dst, mat, offset)` for every (src, dst, mat, offset) of `jobs`, on `pool`
    (the caller when None; also when the batch, at `_NS_PER_ELEMENT` per pixel and channel, is
    too cheap to wake a thread) without the GIL, largest first.  Every job is checked before
    any runs."""
    cdef Py_ssize_t n = len(jobs), i
    keep = []
    cdef Job* cjobs = <Job*>job_array(n, sizeof(Job), keep)
    for i in range(n):
        src, dst, mat, offset = jobs[i]
        keep.append(_linear_job(src, dst, mat, offset, &cjobs[i]))
    _run(pool, cjobs, n)


# -- colour space conversions (uint8) ---------------------------------------------------------

# BT.601: Y = Kr R + Kg G + Kb B scaled to 16..235; Cb, Cr = (B - Y) / (2 (1 - Kb)),
# (R - Y) / (2 (1 - Kr)) scaled to 16..240 around 128.  Coefficients in double, then float
# (float literals throughout: integer ones would divide as C ints here).
_KR, _KB = 0.299, 0.114
_KG = 1.0 - _KR - _KB
_Y, _C = 219.0 / 255.0, 224.0 / 255.0
_CB, _CR = 0.5 / (1.0 - _KB), 0.5 / (1.0 - _KR)
_TO_YCBCR = np.array([
    [_KR * _Y, _KG * _Y, _KB * _Y],
    [-_KR * _CB * _C, -_KG * _CB * _C, (1.0 - _KB) * _CB * _C],
    [(1.0 - _KR) * _CR * _C, -_KG * _CR * _C, -_KB * _CR * _C]]).astype(np.float32)
_FROM_YCBCR = np.array([
    [1.0 / _Y, 0.0, 2.0 * (1.0 - _KR) / _C],
    [1.0 / _Y, -2.0 * (1.0 - _KB) * _KB / _KG / _C, -2.0 * (1.0 - _KR) * _KR / _KG / _C],
    [1.0 / _Y, 2.0 * (1.0 - _KB) / _C, 0.0]]).astype(np.float32)
cdef float[:, ::1] TO_YCBCR = _TO_YCBCR
cdef float[:, ::1] FROM_YCBCR = _FROM_YCBCR
cdef float Y_TO_GRAY = <float>(255.0 / 219.0)
cdef float GRAY_TO_Y = <float>(219.0 / 255.0)
# float constants: a double literal would turn the arithmetic into double precision
cdef float F16 = 16, F128 = 128


cdef inline uint8_t _u8(float v) noexcept nogil:
    return <uint8_t>sat_int(v, 0, 255)


cdef void _convert(const uint8_t* s, uint8_t* d, Py_ssize_t n, int conversion, int red,
                   const float* to_ycc, const float* from_ycc) noexcept nogil:
    cdef Py_ssize_t p
    cdef int blue = 2 - red, c
    cdef float r, g, b, y, cb, cr, ty
    if conversion == SWAP_RB:
        for p in range(n):
            d[3 * p] = s[3 * p + 2]
            d[3 * p + 1] = s[3 * p + 1]
            d[3 * p + 2] = s[3 * p]
    elif conversion == TO_GRAY:
        for p in range(n):
            d[p] = <uint8_t>((s[3 * p + red] * 9798 + s[3 * p + 1] * 19235
                              + s[3 * p + blue] * 3735 + 16384) >> 15)
    elif conversion == GRAY_TO_RGB:
        for p in range(n):
            d[3 * p] = s[p]
            d[3 * p + 1] = s[p]
            d[3 * p + 2] = s[p]
    elif conversion == RGB_TO_YCBCR:
        for p in range(n):
            r = s[3 * p + red]
            g = s[3 * p + 1]
            b = s[3 * p + blue]
            for c in range(3):
                d[3 * p + c] = _u8(to_ycc[3 * c] * r + to_ycc[3 * c + 1] * g
                                   + to_ycc[3 * c + 2] * b + (F16 if c == 0 else F128))
    elif conversion == YCBCR_TO_RGB:
        for p in range(n):
            y = s[3 * p] - F16
            cb = s[3 * p + 1] - F128
            cr = s[3 * p + 2] - F128
            d[3 * p + red] = _u8(from_ycc[0] * y + from_ycc[1] * cb + from_ycc[2] * cr)
            d[3 * p + 1] = _u8(from_ycc[3] * y + from_ycc[4] * cb + from_ycc[5] * cr)
            d[3 * p + blue] = _u8(from_ycc[6] * y + from_ycc[7] * cb + from_ycc[8] * cr)
    elif conversion == YCBCR_TO_GRAY:
        for p in range(n):
            d[p] = _u8(Y_TO_GRAY * (s[3 * p] - F16))
    else:
        for p in range(n):
            ty = s[p] * GRAY_TO_Y + F16
            d[3 * p] = _u8(ty)
            d[3 * p + 1] = 128
            d[3 * p + 2] = 128


def convert_space(cnp.ndarray src, cnp.ndarray dst, conversion, int red=0):
    """Convert uint8 pixels (see the module docstring).

    Parameters
    ----------
    src, dst : C-contiguous uint8 ndarrays (pixels, channels), channels as the conversion needs
    conversion : str
        A key of `CONVERSIONS`.
    red : int
        Index of the red channel on the RGB/BGR side: 0 (RGB) or 2 (BGR).
    """
    convert_space_batch(None, [(src, dst)], conversion, red)


def convert_space_batch(ThreadPool pool, list jobs, conversion, int red=0):
    """`convert_space(src, dst, conversion, red)` for every (src, dst) of `jobs`, as
    `linear_batch` runs its jobs."""
    cdef int code = CONVERSIONS[conversion]
    cin, cout = _CHANNELS[code]
    if red not in (0, 2):
        raise ValueError("red must be 0 or 2")
    cdef Py_ssize_t n = len(jobs), i
    cdef cnp.ndarray src, dst
    keep = []
    cdef Job* cjobs = <Job*>job_array(n, sizeof(Job), keep)
    for i in range(n):
        src, dst = jobs[i]
        if src.dtype != np.uint8 or dst.dtype != np.uint8:
            raise TypeError("colour space conversion works on uint8 data")
        if src.ndim != 2 or dst.ndim != 2 or src.shape[0] != dst.shape[0] \
                or src.shape[1] != cin or dst.shape[1] != cout:
            raise ValueError(f"{conversion} needs (pixels, {cin}) -> (pixels, {cout}) arrays")
        if not (src.flags.c_contiguous and dst.flags.c_contiguous):
            raise ValueError("src and dst must be C-contiguous")
        cjobs[i].src = <const char*>cnp.PyArray_DATA(src)
        cjobs[i].dst = <char*>cnp.PyArray_DATA(dst)
        cjobs[i].n = src.shape[0]
        cjobs[i].cin, cjobs[i].cout = cin, cout
        cjobs[i].conversion, cjobs[i].red = code, red
    _run(pool, cjobs, n)
