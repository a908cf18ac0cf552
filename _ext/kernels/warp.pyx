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
saturate.  Everything runs without the GIL; `warp_batch` warps every image (sample or frame)
of a batch in one call on a thread pool, largest first, with no Python per image.

`warp_perspective_batch` is the perspective warp of fn.experimental.warp_perspective, with
OpenCV's arithmetic (fixed-point positions and weights, five border modes: see
warp_perspective.h), on images described by byte offsets so that HWC, planar and sequence
layouts all reach it as 1-4 channel HWC images.

Speed: a row is one loop per interpolation (inlined with 3 channels so the channel loop
unrolls); where a pixel's neighbourhood lies wholly inside the input the floor is a
truncation and no border is checked, and a 3-channel uint8 linear blend is one 4-lane vector
step (warp.h) doing the same float32 operations in the same order, so results do not depend
on the path, the thread count or the instruction set.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t

from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

from dali._ext.kernels.convert cimport store
from dali._ext.kernels.interpolation cimport floor_index


cdef extern from "warp.h" nogil:
    void dali_warp_lerp_u8c3(const uint8_t* p00, int64_t row, uint8_t* out, float fx,
                             float fy)
    void dali_warp_lerp4_u8c3(const uint8_t* p00, const uint8_t* p01, const uint8_t* p10,
                              const uint8_t* p11, int inside, float fill, uint8_t* out,
                              float fx, float fy)

cdef extern from "warp_perspective.h" nogil:
    ctypedef struct dali_wp_job:
        const void* src
        void* dst
        int64_t h, w, c, oh, ow, y0, y1
        double m[9]
        double fill[4]
        int type, interp, border
    void dali_wp_run(const dali_wp_job* j)
    int dali_wp_fma "dali_wp::dali_wp_fma"
    void dali_wp_detect "dali_wp::dali_wp_detect"() noexcept nogil

cnp.import_array()
dali_wp_detect()

cdef double _NS_PER_ELEMENT = 4.0     # the cost estimate (per output value) the pool gets

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


cdef inline void _lerp_px(const src_t* p00, const src_t* p10, Py_ssize_t nc, dst_t* out,
                          float fx, float fy) noexcept nogil:
    """Blend the 2x2 neighbourhood at p00 (p01 = p00 + nc, p10, p11 = p10 + nc), all inside."""
    cdef Py_ssize_t c
    cdef float top, bottom
    for c in range(nc):
        top = p00[c] + (p00[c + nc] - <float>p00[c]) * fx
        bottom = p10[c] + (p10[c + nc] - <float>p10[c]) * fx
        store(&out[c], top + (bottom - top) * fy)


cdef void _lerp_border(const src_t* src, Py_ssize_t h, Py_ssize_t w, Py_ssize_t nc,
                       dst_t* out, Py_ssize_t xi, Py_ssize_t yi, float fx, float fy,
                       bint use_fill, float fill) noexcept nogil:
    """Blend a neighbourhood that is (partly) outside: fill or clamped edge pixels."""
    cdef Py_ssize_t c, x1 = xi + 1, y1 = yi + 1
    cdef float a, b, top, bottom
    if xi <= -2 or xi >= w + 1:     # far outside: keep inf * 0 out of the blend
        fx = 0
    if yi <= -2 or yi >= h + 1:
        fy = 0
    cdef bint in00 = 0 <= xi < w and 0 <= yi < h
    cdef bint in01 = 0 <= x1 < w and 0 <= yi < h
    cdef bint in10 = 0 <= xi < w and 0 <= y1 < h
    cdef bint in11 = 0 <= x1 < w and 0 <= y1 < h
    cdef const src_t* p00 = src + (_clamp(yi, h) * w + _clamp(xi, w)) * nc
    cdef const src_t* p01 = src + (_clamp(yi, h) * w + _clamp(x1, w)) * nc
    cdef const src_t* p10 = src + (_clamp(y1, h) * w + _clamp(xi, w)) * nc
    cdef const src_t* p11 = src + (_clamp(y1, h) * w + _clamp(x1, w)) * nc
    if src_t is uint8_t and dst_t is uint8_t:
        if nc == 3:
            dali_warp_lerp4_u8c3(p00, p01, p10, p11,
                                 15 if not use_fill else in00 | in01 << 1 | in10 << 2 |
                                 in11 << 3, fill, out, fx, fy)
            return
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


cdef inline void _row_linear(const src_t* src, Py_ssize_t h, Py_ssize_t w, Py_ssize_t nc,
                             dst_t* out, Py_ssize_t ow, float sx, float sy, float dx,
                             float dy, bint use_fill, float fill) noexcept nogil:
    """One output row of linear interpolation; inlined with nc = 3 so that the channel loop
    unrolls.  Inside, floor is a truncation (the position is >= 0) and no border is checked:
    `0 <= sx - 0.5 < w - 1` is exactly `0 <= floor(sx - 0.5) and floor(sx - 0.5) + 1 < w`."""
    cdef Py_ssize_t _x, xi, yi
    cdef float half = 0.5, px, py
    cdef float xmax = <float>(w - 1), ymax = <float>(h - 1)
    cdef Py_ssize_t row = w * nc
    cdef const src_t* p00
    for _x in range(ow):
        px = sx - half
        py = sy - half
        if px >= 0 and px < xmax and py >= 0 and py < ymax:
            xi = <Py_ssize_t>px
            yi = <Py_ssize_t>py
            p00 = src + yi * row + xi * nc
            if src_t is uint8_t and dst_t is uint8_t:
                # the vector step reads a byte past p11: not at the image's last pixel
                if nc == 3 and (xi + 2 < w or yi + 2 < h):
                    dali_warp_lerp_u8c3(p00, row, out, px - xi, py - yi)
                else:
                    _lerp_px(p00, p00 + row, nc, out, px - xi, py - yi)
            else:
                _lerp_px(p00, p00 + row, nc, out, px - xi, py - yi)
        else:
            xi = floor_index(px, w)
            yi = floor_index(py, h)
            _lerp_border(src, h, w, nc, out, xi, yi, px - xi, py - yi, use_fill, fill)
        out += nc
        sx = sx + dx
        sy = sy + dy


cdef inline void _row_nn(const src_t* src, Py_ssize_t h, Py_ssize_t w, Py_ssize_t nc,
                         dst_t* out, Py_ssize_t ow, float sx, float sy, float dx, float dy,
                         bint use_fill, float fill) noexcept nogil:
    """One output row of nearest neighbour (see `_row_linear`)."""
    cdef Py_ssize_t _x, xi, yi
    cdef float fw = <float>w, fh = <float>h
    for _x in range(ow):
        if sx >= 0 and sx < fw and sy >= 0 and sy < fh:
            _copy_px(src + (<Py_ssize_t>sy * w + <Py_ssize_t>sx) * nc, out, nc)
        elif use_fill:
            _fill_px(out, nc, fill)
        else:
            xi = floor_index(sx, w)
            yi = floor_index(sy, h)
            _copy_px(src + (_clamp(yi, h) * w + _clamp(xi, w)) * nc, out, nc)
        out += nc
        sx = sx + dx
        sy = sy + dy


cdef void _warp(const src_t* src, Py_ssize_t h, Py_ssize_t w, Py_ssize_t nc, dst_t* dst,
                Py_ssize_t oh, Py_ssize_t ow, const float* m, int interp, bint use_fill,
                float fill) noexcept nogil:
    cdef Py_ssize_t y, x
    cdef float half = 0.5
    cdef float x0, y0, sx, sy
    cdef dst_t* out
    if h == 0 or w == 0:
        if not use_fill:
            fill = 0
        for y in range(oh):
            for x in range(ow):
                _fill_px(dst + (y * ow + x) * nc, nc, fill)
        return
    x0 = m[0] * half + m[2]
    y0 = m[3] * half + m[5]
    for y in range(oh):
        sx = m[1] * (y + half) + x0
        sy = m[4] * (y + half) + y0
        out = dst + y * ow * nc
        if interp == NN:
            if nc == 3:
                _row_nn(src, h, w, 3, out, ow, sx, sy, m[0], m[3], use_fill, fill)
            else:
                _row_nn(src, h, w, nc, out, ow, sx, sy, m[0], m[3], use_fill, fill)
        elif nc == 3:
            _row_linear(src, h, w, 3, out, ow, sx, sy, m[0], m[3], use_fill, fill)
        else:
            _row_linear(src, h, w, nc, out, ow, sx, sy, m[0], m[3], use_fill, fill)


cdef struct Job:
    # one image (a sample, or a frame of one): HWC source and destination, same channels
    const char* src
    char* dst
    Py_ssize_t h, w, nc, oh, ow
    int sk, dk
    int interp
    bint use_fill
    float fill
    float m[6]


cdef void _warp_to(const src_t* s, const Job* j) noexcept nogil:
    if j.dk == cnp.NPY_UINT8:
        _warp(s, j.h, j.w, j.nc, <uint8_t*>j.dst, j.oh, j.ow, j.m, j.interp, j.use_fill, j.fill)
    elif j.dk == cnp.NPY_INT16:
        _warp(s, j.h, j.w, j.nc, <int16_t*>j.dst, j.oh, j.ow, j.m, j.interp, j.use_fill, j.fill)
    elif j.dk == cnp.NPY_INT32:
        _warp(s, j.h, j.w, j.nc, <int32_t*>j.dst, j.oh, j.ow, j.m, j.interp, j.use_fill, j.fill)
    else:
        _warp(s, j.h, j.w, j.nc, <float*>j.dst, j.oh, j.ow, j.m, j.interp, j.use_fill, j.fill)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef const Job* j = (<const Job*>ctx) + i
    if j.sk == cnp.NPY_UINT8:
        _warp_to(<const uint8_t*>j.src, j)
    elif j.sk == cnp.NPY_INT16:
        _warp_to(<const int16_t*>j.src, j)
    elif j.sk == cnp.NPY_INT32:
        _warp_to(<const int32_t*>j.src, j)
    else:
        _warp_to(<const float*>j.src, j)


_TYPES = {np.dtype(t).num for t in (np.uint8, np.int16, np.int32, np.float32)}


cdef _check(int interp, fill, src_dtype, dst_dtype):
    if interp != NN and interp != LINEAR:
        raise ValueError(f"unsupported interpolation {interp}")
    if src_dtype.num not in _TYPES or dst_dtype.num not in _TYPES:
        raise TypeError(f"unsupported types {src_dtype} -> {dst_dtype}")


def warp_affine_2d(cnp.ndarray src, cnp.ndarray dst, matrix, int interp, fill=None):
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
    if not (src.flags.c_contiguous and dst.flags.c_contiguous) or src.ndim != 3:
        raise ValueError("src and dst must be C-contiguous HWC images")
    warp_batch(None, BatchStorage.from_dense(src[None]), BatchStorage.from_dense(dst[None]),
               [matrix], interp, fill)


def warp_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, matrices, int interp,
               fill=None):
    """Warp every HWC sample, or every frame of FHWC samples, of `src` into `dst` with its
    sample's (or its frame's) matrix, on `pool` (None: on the caller), largest first.

    Parameters
    ----------
    src, dst : BatchStorage
        Batches of HWC or FHWC samples (uint8, int16, int32 or float32), with the same
        number of frames and channels per sample; dst is contiguous and written, src
        contiguous or per-sample.  HWC `src` samples
        with FHWC `dst` samples: each source is warped into every frame of its output.
    matrices : array_like (num_samples, 6) or (total frames, 6)
        Each sample's output->input mapping (see `warp_affine_2d`), or each frame's: one row
        per frame of every output sample in order (an HWC sample counts as one frame).
    interp, fill
        As in `warp_affine_2d`.
    """
    _check(interp, fill, src.dtype, dst.dtype)
    if not dst.is_contiguous:
        raise ValueError("warp_batch writes into contiguous batch storage only")
    cdef Py_ssize_t n = src.num_samples, i, f, k, count = 0
    cdef int si = src.ndim, nd = dst.ndim
    cdef bint repeat = si == 3 and nd == 4
    cdef const float[:, ::1] mats = np.ascontiguousarray(matrices, dtype=np.float32)
    if dst.num_samples != n or (si != nd and not repeat) or nd not in (3, 4) or \
            mats.shape[1] != 6:
        raise ValueError("src and dst must hold the same number of HWC or FHWC samples, "
                         "with 6-element matrices")
    if n == 0:
        return
    cdef const int64_t[:, ::1] ish = np.ascontiguousarray(src.shapes, dtype=np.int64)
    cdef const int64_t[:, ::1] osh = np.ascontiguousarray(dst.shapes, dtype=np.int64)
    cdef const int64_t[::1] dst_off = dst.offsets
    cdef Py_ssize_t total = 0
    for i in range(n):          # the same frames and channels; the number of frames
        if ish[i, si - 1] != osh[i, nd - 1] or (si == 4 and ish[i, 0] != osh[i, 0]):
            raise ValueError("input and output must have the same frames and channels")
        total += osh[i, 0] if nd == 4 else 1
    if mats.shape[0] != n and mats.shape[0] != total:
        raise ValueError(f"expected one matrix per sample ({n}) or per frame ({total}), got "
                         f"{mats.shape[0]}")
    cdef bint per_frame = mats.shape[0] != n
    keep = []
    cdef const char** src_data = sample_data(src, keep)
    cdef Job* jobs = <Job*>job_array(total, sizeof(Job), keep)
    sizes = np.empty(total, dtype=np.int64)
    cdef int64_t[::1] size_view = sizes
    cdef int sk = src.dtype.num, dk = dst.dtype.num
    cdef Py_ssize_t es = src.dtype.itemsize, ed = dst.dtype.itemsize, sf, df, nf
    cdef bint use_fill = fill is not None
    cdef float fv = fill if use_fill else 0
    with nogil:
        for i in range(n):
            nf = osh[i, 0] if nd == 4 else 1
            for f in range(nf):
                j = &jobs[count]
                j.h, j.w, j.nc = ish[i, si - 3], ish[i, si - 2], ish[i, si - 1]
                j.oh, j.ow = osh[i, nd - 3], osh[i, nd - 2]
                sf = 0 if repeat else j.h * j.w * j.nc
                df = j.oh * j.ow * j.nc
                j.src = src_data[i] + f * sf * es
                j.dst = dst.data + dst_off[i] + f * df * ed
                j.sk, j.dk, j.interp, j.use_fill, j.fill = sk, dk, interp, use_fill, fv
                for k in range(6):
                    j.m[k] = mats[count if per_frame else i, k]
                size_view[count] = df
                count += 1
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_ELEMENT)


# warp_perspective_batch: element types and their codes in warp_perspective.h
PERSPECTIVE_TYPES = {np.dtype(np.uint8): 0, np.dtype(np.uint16): 1, np.dtype(np.int16): 2,
                     np.dtype(np.float32): 3}
cdef int64_t _BAND = 65536            # output elements per work item (at least; whole rows)


def perspective_fma(on=None):
    """Whether the perspective float kernels take their AVX2/FMA path (found at import: the
    CPU has both); `on` switches it (off, or on where the CPU has it), so tests can compare
    both paths."""
    global dali_wp_fma
    if on is not None:
        dali_wp_detect()
        dali_wp_fma = dali_wp_fma and bool(on)
    return bool(dali_wp_fma)


cdef void _run_perspective_job(void* ctx, int64_t i) noexcept nogil:
    dali_wp_run((<const dali_wp_job*>ctx) + i)


def warp_perspective_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, images,
                           matrices, int interp, int border, fills):
    """Warp every image of a batch with its perspective matrix, on `pool` (None: on the
    caller), in bands of output rows, largest first.

    Parameters
    ----------
    src, dst : BatchStorage
        Batches of the same element type (uint8, uint16, int16 or float32); dst is
        contiguous, src contiguous or per-sample.
    images : array_like (k, 10) of int64
        One row per HWC image: its sample, the byte offsets of its first element within the
        sample in src and in dst, h, w, channels (1-4), output h, output w, the row of its
        matrix in `matrices` and the row of its fill values in `fills`.
    matrices : array_like (parts, 9) of float64
        Output -> input matrices (row-major, pixel (0, 0) centred at (0, 0)).
    interp : int
        0 nearest, 1 linear.
    border : int
        0 constant, 1 replicate, 2 reflect, 3 reflect_101, 4 wrap.
    fills : array_like (rows, 4) of float64
        Constant borders (per channel), already values of the element type.
    """
    if src.dtype != dst.dtype or src.dtype not in PERSPECTIVE_TYPES:
        raise TypeError(f"unsupported types {src.dtype} -> {dst.dtype}")
    if not dst.is_contiguous:
        raise ValueError("warp_perspective_batch writes into contiguous batch storage only")
    if interp not in (0, 1) or not 0 <= border <= 4:
        raise ValueError(f"unsupported interpolation {interp} or border {border}")
    im = np.ascontiguousarray(images, dtype=np.int64).reshape(-1, 10)
    cdef const double[:, ::1] m = np.ascontiguousarray(matrices, dtype=np.float64)
    cdef const double[:, ::1] fv = np.ascontiguousarray(fills, dtype=np.float64)
    if m.shape[1] != 9 or fv.shape[1] != 4:
        raise ValueError("matrices must be (parts, 9) and fills (rows, 4)")
    cdef const int64_t[:, ::1] iv = im
    cdef const int64_t[:, ::1] ssh = np.ascontiguousarray(src.shapes, dtype=np.int64)
    cdef const int64_t[:, ::1] dsh = np.ascontiguousarray(dst.shapes, dtype=np.int64)
    cdef Py_ssize_t n = min(src.num_samples, dst.num_samples), i, b, k, d, at = 0, count = 0
    cdef int64_t item = src.dtype.itemsize, sbytes, dbytes, rows
    nb_array = np.empty(iv.shape[0], np.int64)
    cdef int64_t[::1] nb = nb_array
    for i in range(iv.shape[0]):        # one typed pass: sizes, indices and extents checked
        if not (0 <= iv[i, 0] < n and 0 <= iv[i, 8] < m.shape[0] and 0 <= iv[i, 9] < fv.shape[0]
                and 1 <= iv[i, 5] <= 4 and iv[i, 3] >= 1 and iv[i, 4] >= 1 and iv[i, 6] >= 0
                and iv[i, 7] >= 0 and iv[i, 1] >= 0 and iv[i, 2] >= 0
                and iv[i, 3] * iv[i, 4] * iv[i, 5] < 2 ** 31):
            raise ValueError(f"invalid image description {list(iv[i])}")
        sbytes = item
        dbytes = item
        for d in range(ssh.shape[1]):
            sbytes *= ssh[iv[i, 0], d]
        for d in range(dsh.shape[1]):
            dbytes *= dsh[iv[i, 0], d]
        if iv[i, 1] + iv[i, 3] * iv[i, 4] * iv[i, 5] * item > sbytes or \
                iv[i, 2] + iv[i, 6] * iv[i, 7] * iv[i, 5] * item > dbytes:
            raise ValueError(f"image {i} lies outside its sample")
        rows = max(1, _BAND // max(iv[i, 7] * iv[i, 5], 1))
        nb[i] = (iv[i, 6] + rows - 1) // rows
        count += nb[i]
    if count == 0:
        return
    keep = []
    cdef dali_wp_job* jobs = <dali_wp_job*>job_array(count, sizeof(dali_wp_job), keep)
    sizes = np.empty(count, dtype=np.int64)
    cdef int64_t[::1] size_view = sizes
    cdef const char** src_data = sample_data(src, keep)
    cdef const int64_t[::1] dst_off = dst.offsets
    cdef int kind = PERSPECTIVE_TYPES[src.dtype]
    with nogil:
        for i in range(iv.shape[0]):
            for b in range(nb[i]):
                j = &jobs[at]
                j.src = src_data[iv[i, 0]] + iv[i, 1]
                j.dst = dst.data + dst_off[iv[i, 0]] + iv[i, 2]
                j.h, j.w, j.c, j.oh, j.ow = iv[i, 3], iv[i, 4], iv[i, 5], iv[i, 6], iv[i, 7]
                j.y0 = j.oh * b // nb[i]
                j.y1 = j.oh * (b + 1) // nb[i]
                for k in range(9):
                    j.m[k] = m[iv[i, 8], k]
                for k in range(4):
                    j.fill[k] = fv[iv[i, 9], k]
                j.type, j.interp, j.border = kind, interp, border
                size_view[at] = (j.y1 - j.y0) * j.ow * j.c
                at += 1
    run_largest_first(pool, _run_perspective_job, jobs, sizes, _NS_PER_ELEMENT)
