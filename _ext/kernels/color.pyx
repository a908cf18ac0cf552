"""Per-pixel colour kernels: the linear colour transform of fn.color_twist, fn.hsv, fn.hue,
fn.saturation and fn.brightness_contrast, and the colour space conversions of
fn.color_space_conversion.

`linear_batch(pool, srcs, dsts, mats, offsets, units)` maps every pixel (`cin` channels, the
last axis) of every sample to `mat @ pixel + offset` (`cout` channels), in float32 and summed
left to right as DALI's CPU kernel does, then converts to dst's type (`convert.pxd`).
brightness_contrast is the 1x1 case on the samples' elements.  Each sample may be cut into
`units[i]` equal parts (the frames of a sequence) with a matrix and offset each.

uint8 inputs to other types go through tables built once per piece of work, which give the
same bits as the arithmetic: the 1x1 map becomes a 256-entry table of output values, the 3x3
one nine tables of the float32 products `m[c, k] * x` (then summed in the same order).
uint8 -> uint8 1x1 and 3x3 maps (brightness_contrast, hsv, color_twist on uint8) and RGB ->
GRAY run the arithmetic itself, 4 to 32 values at a time (color_simd.h: SSE4.1, AVX2 chosen
at run time, bit-identical to the scalar loop), which is faster than the tables.

`convert_space_batch(pool, srcs, dsts, conversion, red)` converts uint8 pixels between
RGB/BGR, GRAY and YCbCr (ITU-R BT.601, Y in 16..235 and chroma in 16..240):
* RGB <-> BGR swaps the first and third channel;
* to GRAY uses OpenCV's fixed-point weights (9798, 19235, 3735) / 2**15, rounded;
* GRAY to RGB/BGR replicates the channel;
* RGB -> YCbCr and YCbCr -> RGB use float32 coefficients derived from Kr = 0.299 and
  Kb = 0.114, summed left to right, rounded half away from zero and saturated;
* GRAY <-> YCbCr scale the luma between 0..255 and 16..235 (chroma 128).
`red` is the index of the red channel (0 for RGB, 2 for BGR).

A batch is one call: the samples are cut into pieces of at most `TILE` pixels (never across a
part), consecutive small pieces are grouped into work items of up to `TILE` pixels, and the
items run on the thread pool without the GIL, largest first.  Everything is checked before
anything runs.  `*_storage` entry points take whole batches (`BatchStorage`) without Python
per sample, and one matrix for every part.  The nogil contract is in color.pxd.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t

from dali._ext.kernels.convert cimport half, load, sat_int, store
from dali._ext.kernels.fused_types cimport pixel_out_t, pixel_t
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef extern from "color_simd.h" nogil:
    int dali_color_avx2
    void dali_color_detect()
    void dali_color_affine_u8(const uint8_t* s, uint8_t* d, int64_t n, float m, float off)
    void dali_color_gray_u8(const uint8_t* s, uint8_t* d, int64_t n, int red)
    void dali_color_mat3_u8(const uint8_t* s, uint8_t* d, int64_t n, const float* m,
                            const float* off)

dali_color_detect()

cdef double _NS_PER_ELEMENT = 1.0    # the cost estimate (per pixel and channel) the pool gets

cdef enum:
    TILE = 1 << 16          # pixels per piece of work at most
    LUT_MIN = 1024          # pixels from which a uint8 piece is worth its tables

CONVERSIONS = {"swap_rb": SWAP_RB, "to_gray": TO_GRAY, "gray_to_rgb": GRAY_TO_RGB,
               "rgb_to_ycbcr": RGB_TO_YCBCR, "ycbcr_to_rgb": YCBCR_TO_RGB,
               "ycbcr_to_gray": YCBCR_TO_GRAY, "gray_to_ycbcr": GRAY_TO_YCBCR}
_CHANNELS = {SWAP_RB: (3, 3), TO_GRAY: (3, 1), GRAY_TO_RGB: (1, 3), RGB_TO_YCBCR: (3, 3),
             YCBCR_TO_RGB: (3, 3), YCBCR_TO_GRAY: (3, 1), GRAY_TO_YCBCR: (1, 3)}
_TYPES = {np.dtype(t) for t in (np.uint8, np.int16, np.int32, np.float32, np.float16)}


# -- the linear map -------------------------------------------------------------------------

cdef void _lut_1x1(const uint8_t* s, pixel_out_t* d, Py_ssize_t n, float m,
                   float off) noexcept nogil:
    cdef pixel_out_t lut[256]
    cdef Py_ssize_t p
    cdef int x
    for x in range(256):
        store(&lut[x], <float>x * m + off)
    for p in range(n):
        d[p] = lut[s[p]]


cdef void _lut_3x3(const uint8_t* s, pixel_out_t* d, Py_ssize_t n, const float* m,
                   const float* off) noexcept nogil:
    # prod[3 * c + k][x] = m[c, k] * x: the products the arithmetic would compute
    cdef float prod[9][256]
    cdef Py_ssize_t p
    cdef int x, k
    cdef float o0 = off[0], o1 = off[1], o2 = off[2]
    cdef const uint8_t* px
    for k in range(9):
        for x in range(256):
            prod[k][x] = m[k] * <float>x
    for p in range(n):
        px = &s[3 * p]
        store(&d[3 * p], prod[0][px[0]] + prod[1][px[1]] + prod[2][px[2]] + o0)
        store(&d[3 * p + 1], prod[3][px[0]] + prod[4][px[1]] + prod[5][px[2]] + o1)
        store(&d[3 * p + 2], prod[6][px[0]] + prod[7][px[1]] + prod[8][px[2]] + o2)


cdef void _linear(const pixel_t* s, pixel_out_t* d, Py_ssize_t n, int cin, int cout,
                  const float* m, const float* off) noexcept nogil:
    cdef Py_ssize_t p
    cdef int c, k
    cdef float x0, x1, x2, acc
    cdef float m00, m01, m02, m10, m11, m12, m20, m21, m22, o0, o1, o2
    if pixel_t is uint8_t:
        if pixel_out_t is uint8_t:
            if cin == 1 and cout == 1:
                dali_color_affine_u8(s, d, n, m[0], off[0])
                return
            if cin == 3 and cout == 3:
                dali_color_mat3_u8(s, d, n, m, off)
                return
        if n >= LUT_MIN and cin == 1 and cout == 1:
            _lut_1x1(s, d, n, m[0], off[0])
            return
        if n >= LUT_MIN and cin == 3 and cout == 3:
            _lut_3x3(s, d, n, m, off)
            return
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


cdef void _linear_out(const pixel_t* s, char* d, int dk, Py_ssize_t n, int cin, int cout,
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


cdef void _linear_pixels(const char* s, int sk, char* d, int dk, Py_ssize_t n, int cin,
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
cdef float[3] YCBCR_OFFSETS = [16, 128, 128]


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
        dali_color_gray_u8(s, d, n, red)
    elif conversion == GRAY_TO_RGB:
        for p in range(n):
            d[3 * p] = s[p]
            d[3 * p + 1] = s[p]
            d[3 * p + 2] = s[p]
    elif conversion == RGB_TO_YCBCR and red == 0:
        # the 3x3 map's SIMD loop sums in the pixel's channel order, as this one does for RGB
        dali_color_mat3_u8(s, d, n, to_ycc, YCBCR_OFFSETS)
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


# -- batches ----------------------------------------------------------------------------------

cdef void color_run_group(void* ctx, int64_t g) noexcept nogil:
    # pieces that follow each other in memory with the same matrix (the small samples of a
    # contiguous batch) run as one: the uint8 tables and vector loops see long runs
    cdef const Batch* b = <const Batch*>ctx
    cdef Py_ssize_t i = b.groups[g].first, j, n, end = i + b.groups[g].count
    cdef const Piece* pc
    while i < end:
        pc = &b.pieces[i]
        n = pc.n
        j = i + 1
        while (j < end and b.pieces[j].param == pc.param
               and b.pieces[j].src == pc.src + n * b.cin * b.isz
               and b.pieces[j].dst == pc.dst + n * b.cout * b.osz):
            n += b.pieces[j].n
            j += 1
        if b.conversion == LINEAR:
            _linear_pixels(pc.src, b.sk, pc.dst, b.dk, n, b.cin, b.cout,
                           b.mats + pc.param * b.cin * b.cout, b.offs + pc.param * b.cout)
        else:
            _convert(<const uint8_t*>pc.src, <uint8_t*>pc.dst, n, b.conversion, b.red,
                     &TO_YCBCR[0, 0], &FROM_YCBCR[0, 0])
        i = j


cdef _run_batch(ThreadPool pool, Batch* b, Py_ssize_t n, const char** sp, char** dp,
                const int64_t* pixels, units, Py_ssize_t nmats, bint shared, Py_ssize_t isz,
                Py_ssize_t osz, list keep):
    """Cut the samples (sample i: `pixels[i]` pixels at sp[i], written to dp[i]) into pieces
    and groups (see the module docstring) and run the groups.  `nmats` is the number of
    matrices: one per part, or, when `shared`, possibly 1 for every part (-1: none needed)."""
    cdef Py_ssize_t i, f, a, step, part, npieces = 0, nparams = 0, ngroups = 0, k = 0, gpix = 0
    cdef const int64_t[::1] given
    cdef int64_t* parts = <int64_t*>job_array(n, sizeof(int64_t), keep)
    if units is None:
        for i in range(n):
            parts[i] = 1
    else:
        given = np.ascontiguousarray(units, dtype=np.int64)
        if given.shape[0] != n:
            raise ValueError("units needs one value per sample")
        for i in range(n):
            parts[i] = given[i]
    for i in range(n):
        if parts[i] < 0 or (pixels[i] and (parts[i] == 0 or pixels[i] % parts[i])):
            raise ValueError(f"sample {i}: {pixels[i]} pixels do not split into {parts[i]} "
                             f"parts")
        part = pixels[i] // parts[i] if parts[i] else 0
        npieces += parts[i] * ((part + TILE - 1) // TILE)
        nparams += parts[i]
    shared = shared and nmats == 1
    if nmats >= 0 and nmats != nparams and not shared:
        raise ValueError(f"the samples have {nparams} parts but {nmats} matrices are given")
    cdef Piece* pieces = <Piece*>job_array(npieces, sizeof(Piece), keep)
    cdef Group* groups = <Group*>job_array(npieces, sizeof(Group), keep)
    sizes = np.zeros(max(npieces, 1), np.int64)
    cdef int64_t[::1] sz = sizes
    nparams = 0
    with nogil:
        for i in range(n):
            part = pixels[i] // parts[i] if parts[i] else 0
            for f in range(parts[i]):
                a = f * part
                while a < (f + 1) * part:
                    step = min(<Py_ssize_t>TILE, (f + 1) * part - a)
                    pieces[k].src = sp[i] + a * b.cin * isz
                    pieces[k].dst = dp[i] + a * b.cout * osz
                    pieces[k].n = step
                    pieces[k].param = 0 if shared else nparams
                    if ngroups == 0 or gpix + step > TILE:
                        groups[ngroups].first = k
                        ngroups += 1
                        gpix = 0
                    groups[ngroups - 1].count += 1
                    gpix += step
                    sz[ngroups - 1] = gpix * (b.cin + b.cout)
                    k += 1
                    a += step
                nparams += 1
    b.pieces, b.groups = pieces, groups
    b.isz, b.osz = isz, osz
    run_largest_first(pool, color_run_group, b, sizes[:ngroups], _NS_PER_ELEMENT)


cdef _run_lists(ThreadPool pool, list srcs, list dsts, Batch* b, units, Py_ssize_t nmats,
                list keep):
    """`_run_batch` on lists of arrays, checked against `b` (channels, types)."""
    cdef Py_ssize_t n = len(srcs), i, isz = 0, osz = 0
    cdef cnp.ndarray src, dst
    if len(dsts) != n:
        raise ValueError("srcs and dsts must have the same length")
    cdef const char** sp = <const char**>job_array(n, sizeof(char*), keep)
    cdef char** dp = <char**>job_array(n, sizeof(char*), keep)
    cdef int64_t* pixels = <int64_t*>job_array(n, sizeof(int64_t), keep)
    types = _TYPES if b.conversion == LINEAR else {np.dtype(np.uint8)}
    for i in range(n):
        src, dst = srcs[i], dsts[i]
        if i == 0:
            if src.dtype not in types or dst.dtype not in types:
                raise TypeError(f"unsupported types {src.dtype} -> {dst.dtype}")
            b.sk, b.dk = cnp.PyArray_TYPE(src), cnp.PyArray_TYPE(dst)
            isz, osz = src.itemsize, dst.itemsize
        elif cnp.PyArray_TYPE(src) != b.sk or cnp.PyArray_TYPE(dst) != b.dk:
            raise TypeError(f"sample {i}: types {src.dtype} -> {dst.dtype} differ from the "
                            f"first sample's")
        if not (src.flags.c_contiguous and dst.flags.c_contiguous):
            raise ValueError("src and dst must be C-contiguous")
        pixels[i] = src.size // b.cin
        if src.size != pixels[i] * b.cin or dst.size != pixels[i] * b.cout:
            raise ValueError(f"sample {i}: src and dst must hold the same number of pixels "
                             f"of {b.cin} and {b.cout} channels, got {src.size} and "
                             f"{dst.size} values")
        sp[i] = <const char*>cnp.PyArray_DATA(src)
        dp[i] = <char*>cnp.PyArray_DATA(dst)
    _run_batch(pool, b, n, sp, dp, pixels, units, nmats, False, isz, osz, keep)


cdef _run_storage(ThreadPool pool, BatchStorage src, BatchStorage dst, Batch* b, units,
                  Py_ssize_t nmats, list keep):
    """`_run_batch` on whole batches: no Python per sample when src is contiguous."""
    cdef Py_ssize_t n = src.num_samples, i, d
    types = _TYPES if b.conversion == LINEAR else {np.dtype(np.uint8)}
    if src.dtype not in types or dst.dtype not in types:
        raise TypeError(f"unsupported types {src.dtype} -> {dst.dtype}")
    if dst.num_samples != n or not dst.is_contiguous:
        raise ValueError("dst must be contiguous storage of as many samples as src")
    b.sk, b.dk = cnp.PyArray_TYPE(np.empty(0, src.dtype)), cnp.PyArray_TYPE(
        np.empty(0, dst.dtype))
    if n == 0:
        return
    cdef const int64_t[:, ::1] ss = np.ascontiguousarray(src.shapes, dtype=np.int64)
    cdef const int64_t[:, ::1] ds = np.ascontiguousarray(dst.shapes, dtype=np.int64)
    cdef const int64_t[::1] doff = dst.offsets
    cdef const int64_t[::1] soff = src.offsets if src.is_contiguous else None
    cdef const char** sp = <const char**>job_array(n, sizeof(char*), keep)
    cdef char** dp = <char**>job_array(n, sizeof(char*), keep)
    cdef int64_t* pixels = <int64_t*>job_array(n, sizeof(int64_t), keep)
    cdef int64_t se, de
    cdef Py_ssize_t bad = -1
    with nogil:
        for i in range(n):
            se = de = 1
            for d in range(ss.shape[1]):
                se *= ss[i, d]
            for d in range(ds.shape[1]):
                de *= ds[i, d]
            pixels[i] = se // b.cin
            if bad < 0 and (se != pixels[i] * b.cin or de != pixels[i] * b.cout):
                bad = i
            dp[i] = dst.data + doff[i]
            if soff is not None:
                sp[i] = src.data + soff[i]
    if bad >= 0:
        raise ValueError(f"sample {bad}: src and dst must hold the same number of pixels of "
                         f"{b.cin} and {b.cout} channels")
    if soff is None:
        views = [np.ascontiguousarray(v) for v in src.samples()]
        keep.append(views)
        for i in range(n):
            sp[i] = <const char*>cnp.PyArray_DATA(views[i])
    _run_batch(pool, b, n, sp, dp, pixels, units, nmats, True, src.dtype.itemsize,
               dst.dtype.itemsize, keep)


def simd_avx2(enable=None):
    """Whether the uint8 loops of color_simd.h take their AVX2 path; `enable` switches it (on
    only where the CPU has AVX2).  For tests."""
    global dali_color_avx2
    if enable is not None:
        dali_color_detect()
        if not enable:
            dali_color_avx2 = 0
    return bool(dali_color_avx2)


cdef Batch* _linear_batch(mats, offsets, list keep) except NULL:
    cdef cnp.ndarray m = np.ascontiguousarray(mats, dtype=np.float32)
    cdef cnp.ndarray o = np.ascontiguousarray(offsets, dtype=np.float32)
    if m.ndim != 3 or o.ndim != 2 or o.shape[0] != m.shape[0] or o.shape[1] != m.shape[1]:
        raise ValueError("mats must be (parts, cout, cin) and offsets (parts, cout)")
    if m.shape[1] == 0 or m.shape[2] == 0:
        raise ValueError("the matrices must have at least one row and one column")
    keep += [m, o]
    cdef Batch* b = <Batch*>job_array(1, sizeof(Batch), keep)
    b.cout, b.cin = m.shape[1], m.shape[2]
    b.mats = <const float*>cnp.PyArray_DATA(m)
    b.offs = <const float*>cnp.PyArray_DATA(o)
    b.conversion = LINEAR
    return b


def linear_batch(ThreadPool pool, list srcs, list dsts, mats, offsets, units=None):
    """dst[p] = mat @ src[p] + offset for every pixel p of every sample, converted to dst's
    type, on `pool` (the caller when None, or when the batch, at `_NS_PER_ELEMENT` per pixel
    and channel, is too cheap to wake a thread) without the GIL.

    Parameters
    ----------
    pool : ThreadPool or None
    srcs, dsts : lists of C-contiguous ndarrays
        The samples (any shape: pixels of `cin` and `cout` channels back to back), every src of
        one type and every dst of one type among uint8, int16, int32, float32 and float16.
    mats : (parts, cout, cin) float32
        One matrix per part, the parts of sample 0 first.
    offsets : (parts, cout) float32
    units : (len(srcs),) int64, optional
        The number of equal parts of every sample (its frames, when the matrix varies per
        frame; 0 only for an empty sample); 1 each by default.
    """
    keep = []
    cdef Batch* b = _linear_batch(mats, offsets, keep)
    _run_lists(pool, srcs, dsts, b, units, (<cnp.ndarray>keep[0]).shape[0], keep)


def linear_storage(ThreadPool pool, BatchStorage src, BatchStorage dst, mats, offsets,
                   units=None):
    """`linear_batch` on whole batches (dst contiguous), without Python per sample: the
    samples' pixels are their elements `cin` at a time.  `mats` and `offsets` may also hold
    one matrix for every part."""
    keep = []
    cdef Batch* b = _linear_batch(mats, offsets, keep)
    _run_storage(pool, src, dst, b, units, (<cnp.ndarray>keep[0]).shape[0], keep)


def linear(cnp.ndarray src, cnp.ndarray dst, mat, offset):
    """`linear_batch` of one sample with one (cout, cin) matrix and (cout,) offset."""
    linear_batch(None, [src], [dst], np.asarray(mat, np.float32)[None],
                 np.asarray(offset, np.float32)[None])


cdef Batch* _conversion_batch(conversion, int red, list keep) except NULL:
    """The Batch of a colour space conversion (a key of `CONVERSIONS`; `red` 0 or 2), alive
    as long as `keep`."""
    cdef int code = CONVERSIONS[conversion]
    if red not in (0, 2):
        raise ValueError("red must be 0 or 2")
    cdef Batch* b = <Batch*>job_array(1, sizeof(Batch), keep)
    b.cin, b.cout = _CHANNELS[code]
    b.conversion, b.red = code, red
    return b


def convert_space_batch(ThreadPool pool, list srcs, list dsts, conversion, int red=0):
    """Convert the uint8 pixels of every sample (see the module docstring), as `linear_batch`
    runs its samples.

    Parameters
    ----------
    pool : ThreadPool or None
    srcs, dsts : lists of C-contiguous uint8 ndarrays, pixels of the channels the conversion
        needs back to back
    conversion : str
        A key of `CONVERSIONS`.
    red : int
        Index of the red channel on the RGB/BGR side: 0 (RGB) or 2 (BGR).
    """
    keep = []
    cdef Batch* b = _conversion_batch(conversion, red, keep)
    _run_lists(pool, srcs, dsts, b, None, -1, keep)


def convert_space_storage(ThreadPool pool, BatchStorage src, BatchStorage dst, conversion,
                          int red=0):
    """`convert_space_batch` on whole batches (dst contiguous), without Python per
    sample."""
    keep = []
    cdef Batch* b = _conversion_batch(conversion, red, keep)
    _run_storage(pool, src, dst, b, None, -1, keep)


def convert_space(cnp.ndarray src, cnp.ndarray dst, conversion, int red=0):
    """`convert_space_batch` of one sample."""
    convert_space_batch(None, [src], [dst], conversion, red)
