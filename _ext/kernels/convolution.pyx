"""Convolutions of fn.gaussian_blur, fn.laplacian (separable) and fn.filter (a 2-D window), in
float32 as DALI's CPU kernels compute them.

A sample is cut into parts: contiguous blocks of 1 to 3 spatial axes (extents `ext`) with `nc`
interleaved channels (a frame of FHWC, a channel plane of CHW: the caller collapses the
layout).  Each part is one work item; the items run on the pool, largest first.  A part is
first read into float32 (`load`), so the passes run on one type.

Separable (`separable_batch`): the output is sum_t scale_t * P_t over `nterms` terms, each P_t
the input convolved along every spatial axis with its own window, innermost axis first, every
pass rounded to float32 (DALI's order: the results are bit for bit DALI's).  A pass computes
out[x] = sum_k w[k] * in[x + k - r] for k = 0..len-1 in that order, starting from 0; indices
outside the part reflect without repeating the edge (reflect-101, any distance).  The sum is
`s_0 * P_0`, then `+ s_1 * P_1`, ... and is converted to the output type (`store`: integers
round half away from zero and saturate).

Filter (`filter_batch`): out[y, x] = sum_i sum_j f[i, j] * in[y - a_i + i, x - a_j + j]
(correlation, i-major, zero taps skipped as OpenCV's filter2D skips them), with the input
padded by a border mode (reflect-101, reflect-1001,
wrap, clamp, constant fill); in "valid" mode the anchor is 0 and the output is smaller.
Integer outputs round halves to even (DALI's CPU filter is OpenCV's filter2D, cvRound).
uint8 parts with integer taps whose magnitudes sum to at most 128 (sharpening, box filters)
run the same sums in int16, where they are exact, as the float32 ones are (convolution.h).
"""
cimport numpy as cnp
import numpy as np

from libc.math cimport expf, rintf
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from dali._ext.kernels.convert cimport dst_t, half, load, src_t, store
from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cdef extern from "convolution.h" nogil:
    int dali_conv_avx2
    void dali_conv_detect()
    void dali_conv_sum(float* out, const float** src, const float* w, int ntaps, int64_t n)
    void dali_conv_store_u8(uint8_t* dst, const float* v, int64_t n)
    void dali_conv_store_i8(int8_t* dst, const float* v, int64_t n)
    void dali_conv_store_u16(uint16_t* dst, const float* v, int64_t n)
    void dali_conv_store_i16(int16_t* dst, const float* v, int64_t n)
    void dali_conv_store_i64(int64_t* dst, const float* v, int64_t n)
    void dali_conv_store_rint_u8_fast(uint8_t* dst, const float* v, int64_t n)
    void dali_conv_load_u8(const uint8_t* src, float* out, int64_t n)
    void dali_conv_store_rint_u16(uint16_t* dst, const float* v, int64_t n)
    void dali_conv_store_rint_i16(int16_t* dst, const float* v, int64_t n)
    void dali_conv_load_u8_i16(const uint8_t* src, int16_t* out, int64_t n)
    void dali_conv_sum_i16_u8(uint8_t* out, const int16_t** src, const int16_t* w, int ntaps,
                              int64_t n)

cnp.import_array()
dali_conv_detect()

# The cost estimate the pool gets: per element and tap, each element counting 5 taps more for
# its load, padding and store (measured: ~0.2 ns per tap and element with SSE/AVX2).
cdef double _NS_PER_TAP = 0.2
cdef int64_t _ELEMENT_TAPS = 5

cdef enum:
    MAX_TERMS = 3
    K_U8, K_I8, K_U16, K_I16, K_U32, K_I32, K_F32, K_F16, K_I64, K_F64

cdef enum:
    REFLECT_101, REFLECT_1001, WRAP, CLAMP, CONSTANT

# the border modes of `filter_batch`, for Python
BORDER_REFLECT_101, BORDER_REFLECT_1001, BORDER_WRAP, BORDER_CLAMP, BORDER_CONSTANT = range(5)

_KINDS = {np.dtype(np.uint8): K_U8, np.dtype(np.int8): K_I8, np.dtype(np.uint16): K_U16,
          np.dtype(np.int16): K_I16, np.dtype(np.uint32): K_U32, np.dtype(np.int32): K_I32,
          np.dtype(np.float32): K_F32, np.dtype(np.float16): K_F16,
          np.dtype(np.int64): K_I64, np.dtype(np.float64): K_F64}


cdef struct Part:
    const char* src
    char* dst
    int in_kind, out_kind
    int nd
    Py_ssize_t ext[3]         # spatial extents of the input part
    Py_ssize_t out_ext[3]     # of the output part (filter's "valid" mode: smaller)
    Py_ssize_t nc
    int nterms
    const float* win[MAX_TERMS][3]   # separable: window of term t along axis d
    int win_len[MAX_TERMS][3]
    float scale[MAX_TERMS]
    const float* filt         # filter: fh x fw, row-major
    int fh, fw, ay, ax
    int border
    float fill
    Py_ssize_t in_itemsize, out_itemsize
    bint failed               # set when the part's buffers could not be allocated


def avx2(on=None):
    """Whether the tap sums take the AVX2 path; `on=False` switches it off (on only where the
    CPU has AVX2).  For tests: both paths give the same results."""
    global dali_conv_avx2
    if on is not None:
        dali_conv_detect()
        dali_conv_avx2 = dali_conv_avx2 and bool(on)
    return bool(dali_conv_avx2)


def kinds():
    """The element types the kernels read and write (int64 and float64 computed in float32
    like the others)."""
    return tuple(_KINDS)


cdef inline Py_ssize_t _border(Py_ssize_t i, Py_ssize_t n, int mode) noexcept nogil:
    """The index read for position i of an axis of extent n >= 1 (-1: the fill value)."""
    cdef Py_ssize_t p
    if 0 <= i < n:
        return i
    if mode == CONSTANT:
        return -1
    if mode == CLAMP:
        return 0 if i < 0 else n - 1
    if mode == WRAP:
        i %= n
        return i + n if i < 0 else i
    if mode == REFLECT_1001:
        p = 2 * n
        i %= p
        if i < 0:
            i += p
        return p - 1 - i if i >= n else i
    if n == 1:
        return 0
    p = 2 * (n - 1)
    i %= p
    if i < 0:
        i = -i
    return p - i if i >= n else i


cdef inline void _load_typed(const src_t* p, float* out, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = load(p + i)


cdef inline void _store_typed(dst_t* p, const float* v, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        store(p + i, v[i])


ctypedef fused wide_t:
    int64_t
    double


cdef inline void _load_wide(const wide_t* p, float* out, Py_ssize_t n) noexcept nogil:
    # int64 and float64 are computed in float32 too
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = <float>p[i]


cdef inline void _store_f64(double* p, const float* v, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        p[i] = v[i]


cdef void _load(int kind, const char* p, float* out, Py_ssize_t n) noexcept nogil:
    if kind == K_U8:
        dali_conv_load_u8(<const uint8_t*>p, out, n)
    elif kind == K_I8:
        _load_typed(<const int8_t*>p, out, n)
    elif kind == K_U16:
        _load_typed(<const uint16_t*>p, out, n)
    elif kind == K_I16:
        _load_typed(<const int16_t*>p, out, n)
    elif kind == K_U32:
        _load_typed(<const uint32_t*>p, out, n)
    elif kind == K_I32:
        _load_typed(<const int32_t*>p, out, n)
    elif kind == K_F32:
        _load_typed(<const float*>p, out, n)
    elif kind == K_F16:
        _load_typed(<const half*>p, out, n)
    elif kind == K_I64:
        _load_wide(<const int64_t*>p, out, n)
    else:
        _load_wide(<const double*>p, out, n)


cdef void _store(int kind, char* p, const float* v, Py_ssize_t n) noexcept nogil:
    if kind == K_U8:
        dali_conv_store_u8(<uint8_t*>p, v, n)
    elif kind == K_I8:
        dali_conv_store_i8(<int8_t*>p, v, n)
    elif kind == K_U16:
        dali_conv_store_u16(<uint16_t*>p, v, n)
    elif kind == K_I16:
        dali_conv_store_i16(<int16_t*>p, v, n)
    elif kind == K_U32:
        _store_typed(<uint32_t*>p, v, n)
    elif kind == K_I32:
        _store_typed(<int32_t*>p, v, n)
    elif kind == K_F32:
        _store_typed(<float*>p, v, n)
    elif kind == K_F16:
        _store_typed(<half*>p, v, n)
    elif kind == K_I64:
        dali_conv_store_i64(<int64_t*>p, v, n)
    else:
        _store_f64(<double*>p, v, n)


cdef void _store_rint(int kind, char* p, float* v, Py_ssize_t n) noexcept nogil:
    """`_store` rounding halves to even (OpenCV's cvRound: fn.filter's integer outputs); the
    rounding of `v` in place for the types without a fused store."""
    cdef Py_ssize_t i
    if kind == K_U8:
        dali_conv_store_rint_u8_fast(<uint8_t*>p, v, n)
    elif kind == K_U16:
        dali_conv_store_rint_u16(<uint16_t*>p, v, n)
    elif kind == K_I16:
        dali_conv_store_rint_i16(<int16_t*>p, v, n)
    else:
        if kind != K_F32:
            for i in range(n):
                v[i] = rintf(v[i])
        _store(kind, p, v, n)


ctypedef fused row_t:
    float
    int16_t


cdef void _pad_edges(row_t* row, Py_ssize_t w, Py_ssize_t nc, Py_ssize_t lo, Py_ssize_t total,
                     int border, row_t fill) noexcept nogil:
    """Fill pixels [0, lo) and [lo + w, total) of a row whose pixels [lo, lo + w) hold the
    input row, by the border mode."""
    cdef Py_ssize_t x, c, sx
    for x in range(lo):
        sx = _border(x - lo, w, border)
        for c in range(nc):
            row[x * nc + c] = fill if sx < 0 else row[(lo + sx) * nc + c]
    for x in range(lo + w, total):
        sx = _border(x - lo, w, border)
        for c in range(nc):
            row[x * nc + c] = fill if sx < 0 else row[(lo + sx) * nc + c]


cdef void _pass_inner(const float* src, float* dst, Py_ssize_t rows, Py_ssize_t w,
                      Py_ssize_t nc, const float* win, int n, float* pad,
                      const float** taps) noexcept nogil:
    """Convolve every row of `rows` x (w x nc) along w; `pad` holds (w + n - 1) * nc floats,
    `taps` n pointers."""
    cdef int r = n // 2, k
    cdef Py_ssize_t y, len_ = w * nc
    for k in range(n):
        taps[k] = pad + k * nc
    for y in range(rows):
        memcpy(pad + r * nc, src + y * len_, len_ * sizeof(float))
        _pad_edges(pad, w, nc, r, w + n - 1, REFLECT_101, <float>0)
        dali_conv_sum(dst + y * len_, taps, win, n, len_)


cdef void _pass_outer(const float* src, float* dst, Py_ssize_t outer, Py_ssize_t h,
                      Py_ssize_t inner, const float* win, int n,
                      const float** taps) noexcept nogil:
    """Convolve `outer` blocks of h x inner along h; `taps` holds n pointers."""
    cdef int r = n // 2, k
    cdef Py_ssize_t o, y
    for o in range(outer):
        for y in range(h):
            for k in range(n):
                taps[k] = src + (o * h + _border(y + k - r, h, REFLECT_101)) * inner
            dali_conv_sum(dst + (o * h + y) * inner, taps, win, n, inner)


cdef void _separable(Part* p) noexcept nogil:
    cdef Py_ssize_t size = p.nc, d, i, outer, inner, padn = 0, maxw = 0
    cdef int t, a
    for d in range(p.nd):
        size *= p.ext[d]
    if size == 0:
        return
    cdef Py_ssize_t w = p.ext[p.nd - 1]
    for t in range(p.nterms):
        for d in range(p.nd):
            maxw = max(maxw, p.win_len[t][d])
        padn = max(padn, (w + p.win_len[t][p.nd - 1] - 1) * p.nc)
    cdef float* buf = <float*>malloc((4 * size + padn) * sizeof(float))
    cdef const float** taps = <const float**>malloc(maxw * sizeof(float*))
    if buf == NULL or taps == NULL:
        free(buf)
        free(taps)
        p.failed = True
        return
    cdef float* x = buf
    cdef float* a_buf = buf + size
    cdef float* b_buf = buf + 2 * size
    cdef float* acc = buf + 3 * size
    cdef float* pad = buf + 4 * size
    cdef float* cur
    cdef float* nxt
    cdef float s
    _load(p.in_kind, p.src, x, size)
    for t in range(p.nterms):
        _pass_inner(x, a_buf, size // (w * p.nc), w, p.nc, p.win[t][p.nd - 1],
                    p.win_len[t][p.nd - 1], pad, taps)
        cur, nxt = a_buf, b_buf
        inner = w * p.nc
        for a in range(p.nd - 2, -1, -1):
            outer = size // (inner * p.ext[a])
            _pass_outer(cur, nxt, outer, p.ext[a], inner, p.win[t][a], p.win_len[t][a], taps)
            cur, nxt = nxt, cur
            inner *= p.ext[a]
        s = p.scale[t]
        if t == 0:
            for i in range(size):
                acc[i] = s * cur[i]
        else:
            for i in range(size):
                acc[i] = acc[i] + s * cur[i]
    _store(p.out_kind, p.dst, acc, size)
    free(taps)
    free(buf)


cdef void _filter_row(const Part* p, Py_ssize_t y, Py_ssize_t pw, row_t* prow) noexcept nogil:
    """Padded row y (input row y - anchor, through the border) as float32, or as int16 (a
    uint8 part with `_small_integer_taps`)."""
    cdef Py_ssize_t t, w = p.ext[1], nc = p.nc
    cdef Py_ssize_t sy = _border(y - p.ay, p.ext[0], p.border)
    if sy < 0:
        for t in range(pw * nc):
            prow[t] = <row_t>p.fill
        return
    if row_t is float:
        _load(p.in_kind, p.src + sy * w * nc * p.in_itemsize, prow + p.ax * nc, w * nc)
    else:
        dali_conv_load_u8_i16(<const uint8_t*>p.src + sy * w * nc, prow + p.ax * nc, w * nc)
    _pad_edges(prow, w, nc, p.ax, pw, p.border, <row_t>p.fill)


cdef bint _small_integer_taps(const Part* p) noexcept nogil:
    """Whether the part is uint8 to uint8 with integer taps whose magnitudes sum to at most
    128 and an integer fill in [0, 255]: `dali_conv_sum_i16_u8` then gives the float path's
    values."""
    cdef float total = 0, v
    cdef int k
    if p.in_kind != K_U8 or p.out_kind != K_U8 or not 0 <= p.fill <= 255 or \
            p.fill != <int>p.fill:
        return False
    for k in range(p.fh * p.fw):
        v = p.filt[k]
        if not -128 <= v <= 128 or v != <int>v:
            return False
        total += v if v > 0 else -v
    return total <= 128


cdef void _filter(Part* p) noexcept nogil:
    """One part of `filter_batch`."""
    if p.out_ext[0] * p.out_ext[1] * p.nc == 0:
        return
    if _small_integer_taps(p):
        _filter_rows(p, <int16_t*>NULL)
    else:
        _filter_rows(p, <float*>NULL)


cdef void _filter_rows(Part* p, row_t* kind) noexcept nogil:
    """Output row y reads padded rows y..y+fh-1, kept in a ring of fh rows (in cache): float32
    rows, or int16 ones (`_small_integer_taps`: exact sums in int16 lanes).  `kind` is NULL:
    it picks the row type."""
    cdef Py_ssize_t nc = p.nc, oh = p.out_ext[0], ow = p.out_ext[1]
    cdef Py_ssize_t pw = ow + p.fw - 1, y, len_ = ow * nc, rowlen = pw * nc
    cdef int i, j, ntaps = 0
    cdef row_t* ring = <row_t*>malloc((p.fh * rowlen + len_ + p.fh * p.fw) * sizeof(row_t))
    cdef const row_t** taps = <const row_t**>malloc(p.fh * p.fw * sizeof(row_t*))
    cdef int* tap_row = <int*>malloc(p.fh * p.fw * sizeof(int))
    cdef Py_ssize_t* tap_col = <Py_ssize_t*>malloc(p.fh * p.fw * sizeof(Py_ssize_t))
    if ring == NULL or taps == NULL or tap_row == NULL or tap_col == NULL:
        free(ring)
        free(taps)
        free(tap_row)
        free(tap_col)
        p.failed = True
        return
    cdef row_t* acc = ring + p.fh * rowlen          # (float rows only)
    cdef row_t* weights = acc + len_
    for i in range(p.fh):                  # zero taps skipped, as OpenCV's filter2D does
        for j in range(p.fw):
            if p.filt[i * p.fw + j] != 0:
                weights[ntaps] = <row_t>p.filt[i * p.fw + j]
                tap_row[ntaps] = i
                tap_col[ntaps] = j * nc
                ntaps += 1
    for i in range(p.fh - 1):
        _filter_row(p, i, pw, ring + i * rowlen)
    for y in range(oh):
        i = (y + p.fh - 1) % p.fh
        _filter_row(p, y + p.fh - 1, pw, ring + i * rowlen)
        for j in range(ntaps):
            taps[j] = ring + ((y + tap_row[j]) % p.fh) * rowlen + tap_col[j]
        if row_t is float:
            dali_conv_sum(acc, taps, weights, ntaps, len_)
            _store_rint(p.out_kind, p.dst + y * len_ * p.out_itemsize, acc, len_)
        else:
            dali_conv_sum_i16_u8(<uint8_t*>p.dst + y * len_, taps, weights, ntaps, len_)
    free(tap_col)
    free(tap_row)
    free(taps)
    free(ring)


cdef void _run_separable(void* ctx, int64_t i) noexcept nogil:
    _separable((<Part*>ctx) + i)


cdef void _run_filter(void* ctx, int64_t i) noexcept nogil:
    _filter((<Part*>ctx) + i)


cdef int _check_parts(const Part* parts, Py_ssize_t n) except -1:
    """MemoryError when a part could not allocate its buffers (its output is not written)."""
    cdef Py_ssize_t i
    for i in range(n):
        if parts[i].failed:
            raise MemoryError("cannot allocate the convolution buffers")
    return 0


def gaussian_window(float sigma, int size):
    """DALI's Gaussian window of `size` (odd) taps: exp(-x*x * (0.5 / sigma**2)) in float32
    (expf) for x = -r..r, divided by their sum accumulated in float32 (half, doubled, plus
    the centre's 1)."""
    cdef int r = (size - 1) // 2, x
    cdef float es = <float>0.5 / (sigma * sigma), total = 0
    out = np.empty(size, np.float32)
    cdef float[::1] w = out
    for x in range(-r, 0):
        w[x + r] = expf(-(<float>(x * x) * es))
        total += w[x + r]
    total = total * 2 + 1
    cdef float scale = 1 / total
    w[r] = scale
    for x in range(r):
        w[x] *= scale
        w[2 * r - x] = w[x]
    return out


cdef inline int64_t _volume(const int64_t* g) noexcept nogil:
    # elements of a sample described by a geometry row; -1 for negative entries
    cdef int64_t v = 1
    cdef int d
    for d in range(6):
        if d != 1:
            if g[d] < 0:
                return -1
            v *= g[d]
    return v


cdef inline int64_t _volume_of(const int64_t* shape, int ndim) noexcept nogil:
    cdef int64_t v = 1
    cdef int d
    for d in range(ndim):
        v *= shape[d]
    return v


cdef Part* _parts(BatchStorage src, BatchStorage dst, geo, out_geo, list keep,
                  Py_ssize_t* count) except NULL:
    """One Part per part of every sample, with its pointers, types and extents."""
    cdef Py_ssize_t n = src.num_samples, i, k, m = 0, d
    if dst.num_samples != n or geo.shape != (n, 6) or out_geo.shape != (n, 6):
        raise ValueError("geometry must be (samples, 6) for as many samples in src and dst")
    if not dst.is_contiguous:
        raise ValueError("the convolution kernels need a contiguous output batch")
    if src.dtype not in _KINDS or dst.dtype not in _KINDS:
        raise TypeError(f"unsupported types {src.dtype} -> {dst.dtype}")
    cdef const int64_t[:, ::1] g = geo
    cdef const int64_t[:, ::1] og = out_geo
    cdef const int64_t[:, ::1] ss = np.ascontiguousarray(src.shapes, np.int64)
    cdef const int64_t[:, ::1] ds = np.ascontiguousarray(dst.shapes, np.int64)
    cdef Py_ssize_t total = 0
    for i in range(n):
        if not 1 <= g[i, 1] <= 3 or og[i, 1] != g[i, 1] or og[i, 0] != g[i, 0]:
            raise ValueError("every sample needs 1 to 3 data axes")
        if (_volume(&g[i, 0]) != _volume_of(&ss[i, 0], src.ndim)
                or _volume(&og[i, 0]) != _volume_of(&ds[i, 0], dst.ndim)):
            raise ValueError("the geometry does not match the samples")
        total += g[i, 0]
    cdef Part* parts = <Part*>job_array(max(total, 1), sizeof(Part), keep)
    cdef const char** src_data = sample_data(src, keep)
    cdef int ik = _KINDS[src.dtype], ok = _KINDS[dst.dtype]
    cdef Py_ssize_t isz = src.dtype.itemsize, osz = dst.dtype.itemsize, pin, pout
    cdef const int64_t[::1] dst_off = dst.offsets
    for i in range(n):
        pin = g[i, 5]
        pout = og[i, 5]
        for d in range(g[i, 1]):
            pin *= g[i, 2 + d]
            pout *= og[i, 2 + d]
        for k in range(g[i, 0]):
            parts[m].src = src_data[i] + k * pin * isz
            parts[m].dst = dst.data + dst_off[i] + k * pout * osz
            parts[m].in_kind, parts[m].out_kind = ik, ok
            parts[m].in_itemsize, parts[m].out_itemsize = isz, osz
            parts[m].nd = g[i, 1]
            for d in range(3):
                parts[m].ext[d] = g[i, 2 + d] if d < g[i, 1] else 1
                parts[m].out_ext[d] = og[i, 2 + d] if d < g[i, 1] else 1
            parts[m].nc = g[i, 5]
            m += 1
    count[0] = total
    return parts


def separable_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, geometry, windows,
                    win_index, scales):
    """dst = sum_t scales[p, t] * (src convolved along each axis with its window), per part.

    Parameters
    ----------
    pool : ThreadPool or None
    src, dst : BatchStorage
        Batches of the same shapes, element types from `kinds()`: `dst` contiguous, `src`
        contiguous or per-sample (its samples read where they are).
    geometry : int64 (samples, 6)
        Per sample: number of parts, spatial axes (1..3), three extents (unused ones 1) and
        interleaved channels; the parts lie back to back in the sample.
    windows : float32 1-D
        All the windows (odd lengths).
    win_index : int64 (parts, terms, 3, 2)
        Per part, term and axis: offset and length of its window in `windows`.
    scales : float32 (parts, terms)
    """
    keep = []
    cdef Py_ssize_t total = 0, i, d
    geo = np.ascontiguousarray(geometry, np.int64)
    cdef Part* parts = _parts(src, dst, geo, geo, keep, &total)
    win = np.ascontiguousarray(windows, np.float32).reshape(-1)
    idx = np.ascontiguousarray(win_index, np.int64)
    sc = np.ascontiguousarray(scales, np.float32)
    if idx.ndim != 4 or idx.shape[0] != total or idx.shape[2:] != (3, 2) or not (
            1 <= idx.shape[1] <= MAX_TERMS) or sc.shape != idx.shape[:2]:
        raise ValueError("win_index must be (parts, terms, 3, 2) and scales (parts, terms)")
    cdef int nterms = idx.shape[1], t
    if total == 0:
        return
    cdef const int64_t[:, :, :, ::1] iv = idx
    cdef const float[:, ::1] sv = sc
    cdef const float[::1] wv = win
    cdef int64_t off, length, taps_total
    taps = np.empty(total, np.int64)
    cdef int64_t[::1] tv = taps
    for i in range(total):
        parts[i].nterms = nterms
        taps_total = 0
        for t in range(nterms):
            parts[i].scale[t] = sv[i, t]
            for d in range(3):
                off, length = iv[i, t, d, 0], iv[i, t, d, 1]
                if length % 2 != 1 or off < 0 or off + length > wv.shape[0]:
                    raise ValueError("every window must be an odd-sized range of `windows`")
                parts[i].win[t][d] = &wv[off]
                parts[i].win_len[t][d] = length
                taps_total += length
        tv[i] = ((taps_total + _ELEMENT_TAPS) * parts[i].ext[0] * parts[i].ext[1] *
                 parts[i].ext[2] * parts[i].nc)
    run_largest_first(pool, _run_separable, parts, taps, _NS_PER_TAP)
    _check_parts(parts, total)


def filter_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, geometry, out_geometry,
                 filters, filt_index, anchors, int border, fills):
    """dst = src correlated with a 2-D filter per part (see the module docstring).

    Parameters
    ----------
    pool : ThreadPool or None
    src, dst : BatchStorage
        Element types from `kinds()`: `dst` contiguous, `src` contiguous or per-sample (its
        samples read where they are).
    geometry, out_geometry : int64 (samples, 6)
        As for `separable_batch`, with 2 data axes; the output parts' extents are the input's
        ("same") or smaller by the filter's extents - 1 ("valid").
    filters : float32 1-D
        All the filters, row-major.
    filt_index : int64 (parts, 3)
        Per part: offset, height and width of its filter in `filters`.
    anchors : int64 (parts, 2)
        Per part: the filter's anchor, within the filter.
    border : int
        One of the BORDER_* modes.
    fills : float32 (parts,)
        The value of the constant border, per part.
    """
    keep = []
    cdef Py_ssize_t total = 0, i
    geo = np.ascontiguousarray(geometry, np.int64)
    out_geo = np.ascontiguousarray(out_geometry, np.int64)
    cdef Part* parts = _parts(src, dst, geo, out_geo, keep, &total)
    filt = np.ascontiguousarray(filters, np.float32).reshape(-1)
    idx = np.ascontiguousarray(filt_index, np.int64)
    anc = np.ascontiguousarray(anchors, np.int64)
    fill = np.ascontiguousarray(fills, np.float32)
    if idx.shape != (total, 3) or anc.shape != (total, 2) or fill.shape != (total,):
        raise ValueError("filt_index must be (parts, 3), anchors (parts, 2), fills (parts,)")
    if not REFLECT_101 <= border <= CONSTANT:
        raise ValueError(f"unknown border mode {border}")
    if total == 0:
        return
    cdef const int64_t[:, ::1] iv = idx
    cdef const int64_t[:, ::1] av = anc
    cdef const float[::1] fv = fill
    cdef const float[::1] wv = filt
    cost = np.empty(total, np.int64)
    cdef int64_t[::1] cv = cost
    cdef Part* p
    for i in range(total):
        p = &parts[i]
        if (p.nd != 2 or iv[i, 1] < 1 or iv[i, 2] < 1 or iv[i, 0] < 0
                or iv[i, 0] + iv[i, 1] * iv[i, 2] > wv.shape[0]
                or not 0 <= av[i, 0] < iv[i, 1] or not 0 <= av[i, 1] < iv[i, 2]):
            raise ValueError("every part needs 2 data axes and a filter range with its anchor "
                             "inside")
        if not ((p.out_ext[0] == p.ext[0] and p.out_ext[1] == p.ext[1]) or
                (p.out_ext[0] == p.ext[0] - iv[i, 1] + 1
                 and p.out_ext[1] == p.ext[1] - iv[i, 2] + 1)):
            raise ValueError("the output parts must be as large as the input's or smaller by "
                             "the filter's extents - 1")
        p.filt = &wv[iv[i, 0]]
        p.fh, p.fw = iv[i, 1], iv[i, 2]
        p.ay, p.ax = av[i, 0], av[i, 1]
        p.border, p.fill = border, fv[i]
        cv[i] = p.out_ext[0] * p.out_ext[1] * p.nc * (p.fh * p.fw + _ELEMENT_TAPS)
    run_largest_first(pool, _run_filter, parts, cost, _NS_PER_TAP)
    _check_parts(parts, total)
