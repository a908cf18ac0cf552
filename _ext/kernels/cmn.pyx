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

from libc.math cimport roundf
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
    if dst_t is float:
        out[0] = v
    elif dst_t is uint8_t:
        if not (v > 0):
            out[0] = 0
        elif v >= 255:
            out[0] = 255
        else:
            out[0] = <uint8_t>roundf(v)
    else:
        if v != v:
            out[0] = 0
        elif v <= -128:
            out[0] = -128
        elif v >= 127:
            out[0] = 127
        else:
            out[0] = <int8_t>roundf(v)


cdef void _normalize(const char* src, char* dst, int ndim, const Py_ssize_t* shape,
                     const Py_ssize_t* sstr, const Py_ssize_t* dstr, int cdim,
                     const float* mean, const float* mul, src_t* s_tag,
                     dst_t* d_tag) noexcept nogil:
    """Odometer over the outer dimensions, explicit loops over the two innermost."""
    cdef Py_ssize_t idx[MAX_DIMS]
    cdef Py_ssize_t n_outer = 1, k, i, j, c = 0
    cdef int d, outer = ndim - 2
    cdef Py_ssize_t ni = shape[ndim - 2], nj = shape[ndim - 1]
    cdef Py_ssize_t si = sstr[ndim - 2], sj = sstr[ndim - 1]
    cdef Py_ssize_t di = dstr[ndim - 2], dj = dstr[ndim - 1]
    cdef const char* sp
    cdef char* dp
    cdef const char* srow
    cdef char* drow
    cdef float m = mean[0], f = mul[0]
    for d in range(outer):
        n_outer *= shape[d]
        idx[d] = 0
    for k in range(n_outer):
        sp = src
        dp = dst
        for d in range(outer):
            sp += idx[d] * sstr[d]
            dp += idx[d] * dstr[d]
            if d == cdim:
                c = idx[d]
        if cdim < outer:
            m = mean[c]
            f = mul[c]
        for i in range(ni):
            srow = sp + i * si
            drow = dp + i * di
            if cdim == ndim - 2:
                m = mean[i]
                f = mul[i]
            if cdim == ndim - 1:
                for j in range(nj):
                    _store(<dst_t*>(drow + j * dj),
                           (<float>(<const src_t*>(srow + j * sj))[0] - mean[j]) * mul[j])
            else:
                for j in range(nj):
                    _store(<dst_t*>(drow + j * dj),
                           (<float>(<const src_t*>(srow + j * sj))[0] - m) * f)
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
