"""Displacement filters of fn.water and fn.sphere on HWC images (uint8 or float32).

Output pixel (y, x) reads the input at a float32 position p(y, x) (pixel-corner coordinates:
the position (x, y) lies in pixel (floor(x), floor(y))), as DALI's CPU kernel computes it:
* water:  p = (x + ampl_x * sinf(freq_x * y + phase_x), y + ampl_y * cosf(freq_y * x + phase_y));
* sphere: with m = (W / 2, H / 2), d = int(max(m)), t = (x + 0.5, y + 0.5) - m,
          p = m + t * |t| / d;
* remap (fn.jitter): p given per pixel by the caller.
Nearest neighbour takes the pixel containing p; linear blends the four pixel centres around
p - 0.5 (`a + (b - a) * f`, rows then columns).  Positions outside the image read
`fill` (given already converted to the input type).  Integer outputs round half away from zero
and saturate.  Everything runs without the GIL; `displace_batch` runs a batch of images on a
thread pool in one call, largest first (images whose mask is off are copied).
"""
cimport numpy as cnp
import numpy as np

from libc.math cimport cosf, sinf, sqrtf
from libc.stdint cimport int64_t, uint8_t
from libc.string cimport memcpy

from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

from dali._ext.kernels.convert cimport store
from dali._ext.kernels.fused_types cimport image_t
from dali._ext.kernels.interpolation cimport floor_index

cnp.import_array()

cdef double _NS_PER_ELEMENT = 1.0    # the cost estimate (per pixel and channel) the pool gets

cdef enum:
    NN = 0
    LINEAR = 1
    WATER = 0
    SPHERE = 1
    REMAP = 2
    COPY = 3


cdef inline float _at(const image_t* src, Py_ssize_t h, Py_ssize_t w, Py_ssize_t nc,
                      Py_ssize_t y, Py_ssize_t x, Py_ssize_t c, float fill) noexcept nogil:
    if 0 <= x < w and 0 <= y < h:
        return <float>src[(y * w + x) * nc + c]
    return fill


cdef void _displace(const image_t* src, image_t* dst, Py_ssize_t h, Py_ssize_t w,
                    Py_ssize_t nc, int mode, const float* wave, const float* map_x,
                    const float* map_y, int interp, float fill,
                    float* wave_rows) noexcept nogil:
    # wave_rows: scratch for water, h + w floats
    cdef Py_ssize_t y, x, c, xi, yi
    cdef float px, py, fx, fy, top, bottom, a, b, tx, ty, rad, fy_, fx_
    cdef float mid_x = w * <float>0.5, mid_y = h * <float>0.5
    cdef int d = <int>(mid_x if mid_x > mid_y else mid_y)
    cdef float half = 0.5
    cdef image_t* out
    cdef const image_t* pix
    cdef image_t fill_value
    store(&fill_value, fill)
    # water's sine term depends on the row only and its cosine term on the column only:
    # computed once each (the same float operations as per pixel)
    cdef float* wave_cols = NULL
    if mode == WATER:
        wave_cols = wave_rows + h
        for y in range(h):
            wave_rows[y] = wave[0] * sinf(wave[1] * <float>y + wave[2])
        for x in range(w):
            wave_cols[x] = wave[3] * cosf(wave[4] * <float>x + wave[5])
    for y in range(h):
        for x in range(w):
            fy_ = <float>y
            fx_ = <float>x
            if mode == WATER:
                px = fx_ + wave_rows[y]
                py = fy_ + wave_cols[x]
            elif mode == REMAP:
                px = map_x[y * w + x]
                py = map_y[y * w + x]
            else:
                ty = fy_ + half - mid_y
                tx = fx_ + half - mid_x
                rad = sqrtf(tx * tx + ty * ty) / d
                px = mid_x + rad * tx
                py = mid_y + rad * ty
            out = &dst[(y * w + x) * nc]
            if interp == NN:
                xi = floor_index(px, w)
                yi = floor_index(py, h)
                if 0 <= xi < w and 0 <= yi < h:      # the element itself: store(load(v)) == v
                    pix = &src[(yi * w + xi) * nc]
                    for c in range(nc):
                        out[c] = pix[c]
                else:
                    for c in range(nc):
                        out[c] = fill_value
            else:
                px = px - half
                py = py - half
                xi = floor_index(px, w)
                yi = floor_index(py, h)
                fx = px - xi
                fy = py - yi
                if xi <= -2 or xi >= w + 1:     # far outside: keep inf * 0 out of the blend
                    fx = 0
                if yi <= -2 or yi >= h + 1:
                    fy = 0
                for c in range(nc):
                    a = _at(src, h, w, nc, yi, xi, c, fill)
                    b = _at(src, h, w, nc, yi, xi + 1, c, fill)
                    top = a + (b - a) * fx
                    a = _at(src, h, w, nc, yi + 1, xi, c, fill)
                    b = _at(src, h, w, nc, yi + 1, xi + 1, c, fill)
                    bottom = a + (b - a) * fx
                    store(&out[c], top + (bottom - top) * fy)


cdef struct Job:
    const char* src
    char* dst
    bint is_float
    Py_ssize_t h, w, nc
    int mode, interp
    float wave[6]
    const float* map_x
    const float* map_y
    float fill
    float* scratch          # h + w floats for water


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    if j.h == 0 or j.w == 0 or j.nc == 0:
        return
    if j.mode == COPY:
        memcpy(j.dst, j.src, j.h * j.w * j.nc * (4 if j.is_float else 1))
    elif j.is_float:
        _displace(<const float*>j.src, <float*>j.dst, j.h, j.w, j.nc, j.mode, j.wave, j.map_x,
                  j.map_y, j.interp, j.fill, j.scratch)
    else:
        _displace(<const uint8_t*>j.src, <uint8_t*>j.dst, j.h, j.w, j.nc, j.mode, j.wave,
                  j.map_x, j.map_y, j.interp, j.fill, j.scratch)


cdef object _describe(cnp.ndarray src, cnp.ndarray dst, str mode, int interp, float fill,
                      wave, positions, Job* job):
    """Check one image's arguments and fill `job`; returns what must stay alive while it
    runs."""
    cdef int k
    cdef const float[:, ::1] map_x = None
    cdef const float[:, ::1] map_y = None
    if src.dtype != dst.dtype or src.dtype not in (np.uint8, np.float32):
        raise TypeError(f"unsupported types {src.dtype} -> {dst.dtype}")
    if src.ndim != 3 or dst.ndim != 3 or not (src.flags.c_contiguous and dst.flags.c_contiguous):
        raise ValueError("src and dst must be C-contiguous (H, W, C) arrays")
    if (src.shape[0] != dst.shape[0] or src.shape[1] != dst.shape[1]
            or src.shape[2] != dst.shape[2]):
        raise ValueError("src and dst must have the same shape")
    if interp != NN and interp != LINEAR:
        raise ValueError(f"unsupported interpolation {interp}")
    job.map_x = job.map_y = NULL
    cdef float[::1] scratch = None
    if mode == "water":
        job.mode = WATER
        if wave is None or len(wave) != 6:
            raise ValueError("water needs the six wave parameters")
        for k in range(6):
            job.wave[k] = wave[k]
        scratch = np.empty(src.shape[0] + src.shape[1] + 1, np.float32)
        job.scratch = &scratch[0]
    elif mode == "sphere":
        job.mode = SPHERE
    elif mode == "copy":
        job.mode = COPY
    elif mode == "remap":
        job.mode = REMAP
        if positions is None:
            raise ValueError("remap needs the positions")
        map_x = np.ascontiguousarray(positions[0], dtype=np.float32)
        map_y = np.ascontiguousarray(positions[1], dtype=np.float32)
        if (map_x.shape[0] != src.shape[0] or map_x.shape[1] != src.shape[1]
                or map_y.shape[0] != src.shape[0] or map_y.shape[1] != src.shape[1]):
            raise ValueError("positions must have the image's height and width")
        if map_x.shape[0] and map_x.shape[1]:
            job.map_x, job.map_y = &map_x[0, 0], &map_y[0, 0]
    else:
        raise ValueError(f"unknown displacement {mode!r}")
    job.src = <const char*>cnp.PyArray_DATA(src)
    job.dst = <char*>cnp.PyArray_DATA(dst)
    job.is_float = src.dtype == np.float32
    job.h, job.w, job.nc = src.shape[0], src.shape[1], src.shape[2]
    job.interp, job.fill = interp, fill
    return map_x, map_y, scratch


def displace(src, dst, str mode, int interp, float fill, wave=None, positions=None):
    """Apply a displacement filter to one HWC image.

    Parameters
    ----------
    src, dst : C-contiguous (H, W, C) uint8 or float32 arrays of the same shape and type
    mode : "water", "sphere", "remap" or "copy" (dst = src)
    interp : 0 (nearest neighbour) or 1 (linear)
    fill : float
        Value read outside the image.
    wave : (ampl_x, freq_x, phase_x, ampl_y, freq_y, phase_y) for "water"
    positions : (x, y) float32 arrays of shape (H, W) for "remap"
    """
    displace_batch(None, [(src, dst, mode, positions)], interp, fill, wave)


def displace_batch(ThreadPool pool, list jobs, int interp, float fill, wave=None):
    """`displace(src, dst, mode, interp, fill, wave, positions)` for every (src, dst, mode,
    positions) of `jobs`, on `pool` (the caller when None, or when the batch is too cheap to
    wake a thread) without the GIL, largest first.  Every job is checked before any runs."""
    cdef Py_ssize_t n = len(jobs), i
    keep = []
    cdef Job* cjobs = <Job*>job_array(n, sizeof(Job), keep)
    for i in range(n):
        src, dst, mode, positions = jobs[i]
        keep.append(_describe(src, dst, mode, interp, fill, wave, positions, &cjobs[i]))
    run_largest_first(pool, _run_job, cjobs,
                      [cjobs[i].h * cjobs[i].w * cjobs[i].nc for i in range(n)],
                      _NS_PER_ELEMENT)
