"""Affine warping of 2-D images (HWC), the CPU kernel of fn.warp_affine and fn.rotate.

The caller passes the output->input mapping M (2x3, x/y order) in *continuous* coordinates
where pixel (i, j) covers [j, j+1) x [i, i+1): the output pixel centre d + 0.5 reads the input
at s = M @ (d + 0.5).  Nearest neighbour takes the input pixel containing s (floor(s)); linear
interpolates between the four pixel centres around s - 0.5.

Arithmetic is float32 and the source position advances along a row by adding M's first column,
as DALI's CPU kernel does: positions that fall exactly on a pixel boundary (common with angles
such as 45 degrees) then resolve to the same pixel.  Outside the input the border is either
the fill value or, without one, the clamped edge pixel.  Linear blends are `a + (b - a) * f`
(so a NaN neighbour propagates, as in DALI); integer outputs round half away from zero and
saturate.  Everything runs without the GIL.
"""
from libc.stdint cimport int16_t, int32_t, uint8_t

from dali._ext.kernels.convert cimport store
from dali._ext.kernels.interpolation cimport floor_index

ctypedef fused src_t:
    uint8_t
    int16_t
    int32_t
    float

ctypedef fused dst_t:
    uint8_t
    int16_t
    int32_t
    float

cdef enum:
    NN = 0
    LINEAR = 1


cdef inline void _copy_px(const src_t* px, dst_t* out, Py_ssize_t nc) noexcept nogil:
    """Copy one pixel's channels (NN): integer inputs keep their value exactly."""
    cdef Py_ssize_t c
    for c in range(nc):
        if src_t is float:
            store(&out[c], px[c])
        elif dst_t is float:
            out[c] = <float>px[c]
        else:
            out[c] = <dst_t>px[c]


cdef inline void _fill_px(dst_t* out, Py_ssize_t nc, float fill) noexcept nogil:
    cdef Py_ssize_t c
    for c in range(nc):
        store(&out[c], fill)


cdef inline Py_ssize_t _clamp(Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    if i < 0:
        return 0
    if i >= n:
        return n - 1
    return i


cdef void _warp(const src_t[:, :, ::1] src, dst_t[:, :, ::1] dst, const float* m, int interp,
                bint use_fill, float fill) noexcept nogil:
    cdef Py_ssize_t h = src.shape[0], w = src.shape[1], nc = src.shape[2]
    cdef Py_ssize_t oh = dst.shape[0], ow = dst.shape[1]
    cdef Py_ssize_t y, x, c, xi, yi, x1, y1
    cdef float half = 0.5
    cdef float sx, sy, x0, y0, fx, fy, a, b, top, bottom
    cdef const src_t* p00
    cdef const src_t* p01
    cdef const src_t* p10
    cdef const src_t* p11
    cdef bint in00, in01, in10, in11
    cdef dst_t* out
    if h == 0 or w == 0:
        if not use_fill:
            fill = 0
        for y in range(oh):
            for x in range(ow):
                _fill_px(&dst[y, x, 0], nc, fill)
        return
    x0 = m[0] * half + m[2]
    y0 = m[3] * half + m[5]
    for y in range(oh):
        sx = m[1] * (y + half) + x0
        sy = m[4] * (y + half) + y0
        for x in range(ow):
            out = &dst[y, x, 0]
            if interp == NN:
                xi = floor_index(sx, w)
                yi = floor_index(sy, h)
                if 0 <= xi < w and 0 <= yi < h:
                    _copy_px(&src[yi, xi, 0], out, nc)
                elif use_fill:
                    _fill_px(out, nc, fill)
                else:
                    _copy_px(&src[_clamp(yi, h), _clamp(xi, w), 0], out, nc)
            else:
                xi = floor_index(sx - half, w)
                yi = floor_index(sy - half, h)
                fx = (sx - half) - xi
                fy = (sy - half) - yi
                x1 = xi + 1
                y1 = yi + 1
                if 0 <= xi and x1 < w and 0 <= yi and y1 < h:
                    p00 = &src[yi, xi, 0]
                    p10 = &src[y1, xi, 0]
                    for c in range(nc):
                        top = p00[c] + (p00[c + nc] - <float>p00[c]) * fx
                        bottom = p10[c] + (p10[c + nc] - <float>p10[c]) * fx
                        store(&out[c], top + (bottom - top) * fy)
                    sx = sx + m[0]
                    sy = sy + m[3]
                    continue
                if xi <= -2 or xi >= w + 1:     # far outside: keep inf * 0 out of the blend
                    fx = 0
                if yi <= -2 or yi >= h + 1:
                    fy = 0
                in00 = 0 <= xi < w and 0 <= yi < h
                in01 = 0 <= x1 < w and 0 <= yi < h
                in10 = 0 <= xi < w and 0 <= y1 < h
                in11 = 0 <= x1 < w and 0 <= y1 < h
                p00 = &src[_clamp(yi, h), _clamp(xi, w), 0]
                p01 = &src[_clamp(yi, h), _clamp(x1, w), 0]
                p10 = &src[_clamp(y1, h), _clamp(xi, w), 0]
                p11 = &src[_clamp(y1, h), _clamp(x1, w), 0]
                for c in range(nc):
                    if use_fill:
                        a = p00[c] if in00 else fill
                        b = p01[c] if in01 else fill
                        top = a + (b - a) * fx
                        a = p10[c] if in10 else fill
                        b = p11[c] if in11 else fill
                    else:
                        a = p00[c]
                        b = p01[c]
                        top = a + (b - a) * fx
                        a = p10[c]
                        b = p11[c]
                    bottom = a + (b - a) * fx
                    store(&out[c], top + (bottom - top) * fy)
            sx = sx + m[0]
            sy = sy + m[3]


def warp_affine_2d(const src_t[:, :, ::1] src, dst_t[:, :, ::1] dst, matrix, int interp,
                   fill=None):
    """Warp one HWC image into `dst` (H'W'C, same C).

    Parameters
    ----------
    src : ndarray (H, W, C) of uint8, int16, int32 or float32, C-contiguous
    dst : ndarray (H', W', C) of uint8, int16, int32 or float32, C-contiguous
    matrix : sequence of 6 floats
        Output->input mapping of pixel-centre positions (see the module docstring).
    interp : int
        0 nearest neighbour, 1 linear.
    fill : float or None
        Value of pixels outside the input; None clamps to the edge.  Give it already
        converted to the input type.
    """
    cdef float m[6]
    cdef Py_ssize_t i
    cdef bint use_fill = fill is not None
    cdef float fv = fill if use_fill else 0
    if src.shape[2] != dst.shape[2]:
        raise ValueError("input and output must have the same number of channels")
    if interp != NN and interp != LINEAR:
        raise ValueError(f"unsupported interpolation {interp}")
    for i in range(6):
        m[i] = matrix[i]
    with nogil:
        _warp(src, dst, m, interp, use_fill, fv)
