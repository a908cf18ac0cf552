"""The fused normalize-and-convert pass of fn.crop_mirror_normalize.

`normalize(src, dst, channel_axis, mean, mul)` writes `(src - mean[c]) * mul[c]` for every
element of `src` into the element of `dst` at the same index, where `c` is the element's index
along `channel_axis`.  Both arrays may have any strides (negative ones too), so the caller
expresses cropping, mirroring and the layout change as numpy views and this pass reads the
input once, in its memory order, and writes the output directly.  Arithmetic is float32;
integer outputs round half away from zero and saturate (NaN gives 0).  Runs without the GIL.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t

cnp.import_array()

ctypedef fused src_t:
    uint8_t
    int16_t
    uint16_t
    int32_t
    float

ctypedef fused dst_t:
    uint8_t
    int8_t
    float

cdef enum:
    MAX_DIMS = 8


cdef inline void _store(dst_t* out, float v) noexcept nogil:
    """Round half away from zero and saturate for integer outputs (NaN -> 0): clamp first, so
    that the truncating conversion is exact, then correct by the remainder."""
    cdef int r
    cdef float rem
    if dst_t is float:
        out[0] = v
        return
    # Comparisons, not fminf/fmaxf: those are library calls without -ffast-math.
    if dst_t is uint8_t:
        if not (v > 0):             # also NaN
            v = 0
        elif v > 255:
            v = 255
    else:
        if v != v:
            v = 0
        elif v < -128:
            v = -128
        elif v > 127:
            v = 127
    r = <int>v
    rem = v - r
    r += (rem >= 0.5) - (rem <= -0.5)
    out[0] = <dst_t>r


cdef inline void _line(const src_t* s, Py_ssize_t ss, dst_t* d, Py_ssize_t ds, Py_ssize_t n,
                       float m, float f) noexcept nogil:
    """n elements with element strides ss, ds; the unit-stride cases are written out so that
    the compiler can vectorize them."""
    cdef Py_ssize_t k
    if ds == 1:
        if ss == 1:
            for k in range(n):
                _store(&d[k], (<float>s[k] - m) * f)
        else:
            for k in range(n):
                _store(&d[k], (<float>s[k * ss] - m) * f)
    elif ds == -1:
        for k in range(n):
            _store(&d[-k], (<float>s[k * ss] - m) * f)
    else:
        for k in range(n):
            _store(&d[k * ds], (<float>s[k * ss] - m) * f)


cdef inline void _pixels3(const src_t* s, Py_ssize_t ss, Py_ssize_t sc, dst_t* d,
                         Py_ssize_t ds, Py_ssize_t dc, Py_ssize_t n, const float* m,
                         const float* f) noexcept nogil:
    """n three-channel pixels: one pass over the source row, three output streams.  Packed
    pixels (forwards or mirrored) into unit-stride planes get loops with constant strides,
    which the compiler vectorizes."""
    cdef Py_ssize_t k
    cdef dst_t* d0 = d
    cdef dst_t* d1 = d + dc
    cdef dst_t* d2 = d + 2 * dc
    cdef float m0 = m[0], m1 = m[1], m2 = m[2], f0 = f[0], f1 = f[1], f2 = f[2]
    if sc == 1 and ds == 1 and ss == 3:
        for k in range(n):
            _store(&d0[k], (<float>s[3 * k] - m0) * f0)
            _store(&d1[k], (<float>s[3 * k + 1] - m1) * f1)
            _store(&d2[k], (<float>s[3 * k + 2] - m2) * f2)
    elif sc == 1 and ds == 1 and ss == -3:
        for k in range(n):
            _store(&d0[k], (<float>s[-3 * k] - m0) * f0)
            _store(&d1[k], (<float>s[1 - 3 * k] - m1) * f1)
            _store(&d2[k], (<float>s[2 - 3 * k] - m2) * f2)
    else:
        for k in range(n):
            _store(&d0[k * ds], (<float>s[k * ss] - m0) * f0)
            _store(&d1[k * ds], (<float>s[k * ss + sc] - m1) * f1)
            _store(&d2[k * ds], (<float>s[k * ss + 2 * sc] - m2) * f2)


cdef void _normalize(const char* src, char* dst, int ndim, const Py_ssize_t* shape,
                     const Py_ssize_t* sstr, const Py_ssize_t* dstr, int cdim,
                     const float* mean, const float* mul, src_t* s_tag,
                     dst_t* d_tag) noexcept nogil:
    """Odometer over the outer dimensions, a loop over the second innermost one and `_line`s
    along the innermost (or, when the channels are innermost, one line per channel along the
    second innermost: reads stay within a cached row, writes are sequential)."""
    cdef Py_ssize_t idx[MAX_DIMS]
    cdef Py_ssize_t n_outer = 1, k, i, c = 0
    cdef int d, outer = ndim - 2
    cdef Py_ssize_t ni = shape[ndim - 2], nj = shape[ndim - 1]
    cdef Py_ssize_t es = sizeof(src_t), ed = sizeof(dst_t)
    cdef Py_ssize_t si = sstr[ndim - 2] // es, sj = sstr[ndim - 1] // es
    cdef Py_ssize_t di = dstr[ndim - 2] // ed, dj = dstr[ndim - 1] // ed
    cdef const src_t* sp
    cdef dst_t* dp
    for d in range(outer):
        n_outer *= shape[d]
        idx[d] = 0
    for k in range(n_outer):
        sp = <const src_t*>src
        dp = <dst_t*>dst
        for d in range(outer):
            sp = <const src_t*>(<const char*>sp + idx[d] * sstr[d])
            dp = <dst_t*>(<char*>dp + idx[d] * dstr[d])
            if d == cdim:
                c = idx[d]
        if cdim == ndim - 1 and nj == 3:
            _pixels3(sp, si, sj, dp, di, dj, ni, mean, mul)
        elif cdim == ndim - 1:
            for c in range(nj):
                _line(sp + c * sj, si, dp + c * dj, di, ni, mean[c], mul[c])
        elif cdim == ndim - 2:
            for i in range(ni):
                _line(sp + i * si, sj, dp + i * di, dj, nj, mean[i], mul[i])
        else:
            for i in range(ni):
                _line(sp + i * si, sj, dp + i * di, dj, nj, mean[c], mul[c])
        d = outer - 1
        while d >= 0:
            idx[d] += 1
            if idx[d] < shape[d]:
                break
            idx[d] = 0
            d -= 1


cdef void _typed_out(src_t* tag, const char* s, char* o, int dk, int ndim,
                     const Py_ssize_t* shape, const Py_ssize_t* sstr, const Py_ssize_t* dstr,
                     int cdim, const float* mean, const float* mul) noexcept nogil:
    if dk == cnp.NPY_FLOAT32:
        _normalize(s, o, ndim, shape, sstr, dstr, cdim, mean, mul, tag, <float*>NULL)
    elif dk == cnp.NPY_UINT8:
        _normalize(s, o, ndim, shape, sstr, dstr, cdim, mean, mul, tag, <uint8_t*>NULL)
    else:
        _normalize(s, o, ndim, shape, sstr, dstr, cdim, mean, mul, tag, <int8_t*>NULL)


cdef void _dispatch(const char* s, char* o, int sk, int dk, int ndim, const Py_ssize_t* shape,
                    const Py_ssize_t* sstr, const Py_ssize_t* dstr, int cdim,
                    const float* mean, const float* mul) noexcept nogil:
    if sk == cnp.NPY_UINT8:
        _typed_out(<uint8_t*>NULL, s, o, dk, ndim, shape, sstr, dstr, cdim, mean, mul)
    elif sk == cnp.NPY_INT16:
        _typed_out(<int16_t*>NULL, s, o, dk, ndim, shape, sstr, dstr, cdim, mean, mul)
    elif sk == cnp.NPY_UINT16:
        _typed_out(<uint16_t*>NULL, s, o, dk, ndim, shape, sstr, dstr, cdim, mean, mul)
    elif sk == cnp.NPY_INT32:
        _typed_out(<int32_t*>NULL, s, o, dk, ndim, shape, sstr, dstr, cdim, mean, mul)
    else:
        _typed_out(<float*>NULL, s, o, dk, ndim, shape, sstr, dstr, cdim, mean, mul)


_SRC = {np.dtype(t) for t in (np.uint8, np.int16, np.uint16, np.int32, np.float32)}
_DST = {np.dtype(t) for t in (np.uint8, np.int8, np.float32)}


def normalize(src, dst, int channel_axis, mean, mul):
    """dst[...] = (src - mean[c]) * mul[c] converted to dst's type (see the module docstring).

    Parameters
    ----------
    src : ndarray of uint8, int16, uint16, int32 or float32, any strides
    dst : ndarray of uint8, int8 or float32, the shape of `src`, any strides
    channel_axis : int
        The axis whose index selects `mean`/`mul` entries.
    mean, mul : float32 arrays with one value per index along `channel_axis`
    """
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t sstr[MAX_DIMS]
    cdef Py_ssize_t dstr[MAX_DIMS]
    cdef cnp.ndarray sa = src
    cdef cnp.ndarray da = dst
    cdef int ndim = sa.ndim, d
    if src.dtype not in _SRC or dst.dtype not in _DST:
        raise TypeError(f"unsupported types {src.dtype} -> {dst.dtype}")
    if dst.ndim != ndim or tuple(dst.shape) != tuple(src.shape):
        raise ValueError("src and dst must have the same shape")
    if not 0 <= channel_axis < ndim:
        raise ValueError("channel_axis out of range")
    cdef const float[::1] m = np.ascontiguousarray(mean, dtype=np.float32)
    cdef const float[::1] f = np.ascontiguousarray(mul, dtype=np.float32)
    if m.shape[0] < src.shape[channel_axis] or f.shape[0] < src.shape[channel_axis]:
        raise ValueError("mean and mul need one value per channel")
    if src.size == 0:
        return
    if any(st % src.itemsize for st in src.strides):
        src = np.ascontiguousarray(src)
        sa = src
    if any(st % dst.itemsize for st in dst.strides):
        raise ValueError("dst strides must be multiples of its item size")
    # Pad to at least two dimensions with leading unit extents.
    cdef int lead = 2 - ndim if ndim < 2 else 0
    if ndim + lead > MAX_DIMS:
        raise ValueError(f"at most {MAX_DIMS} dimensions are supported")
    for d in range(lead):
        shape[d] = 1
        sstr[d] = 0
        dstr[d] = 0
    for d in range(ndim):
        shape[d + lead] = sa.shape[d]
        sstr[d + lead] = sa.strides[d]
        dstr[d + lead] = da.strides[d]
    cdef const char* sp = <const char*>cnp.PyArray_DATA(sa)
    cdef char* dp = <char*>cnp.PyArray_DATA(da)
    cdef int sk = cnp.PyArray_TYPE(sa), dk = cnp.PyArray_TYPE(da)
    ndim += lead
    with nogil:
        _dispatch(sp, dp, sk, dk, ndim, shape, sstr, dstr, channel_axis + lead, &m[0], &f[0])
