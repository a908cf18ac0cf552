"""Zeroes pixels of HWC images in a rotated grid (fn.grid_mask, GridMask augmentation).

Pixel (y, x) is kept where either grid coordinate has a fractional part of at least `ratio`:
with c = cos(angle) / tile and s = sin(angle) / tile (float32),
fx = -shift_x / tile - y * s + x * c and fy = -shift_y / tile + y * c + x * s, evaluated in
float32 in DALI's order; other pixels become 0 in every channel.  One work item per band of
rows (whole small samples), all in one nogil call on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.math cimport cosf, floorf, sinf
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t
from libc.string cimport memcpy, memset

from dali._ext.kernels.fused_types cimport plain_pixel_t
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef int64_t _ROWS_BYTES = 128 * 1024   # bands of at least this size (or whole samples)
cdef double _NS_PER_BYTE = 0.5          # the cost estimate the pool gets
_TYPES = {np.dtype(np.uint8): 0, np.dtype(np.int16): 1, np.dtype(np.int32): 2,
          np.dtype(np.float32): 3}


cdef struct _Job:
    const char* src
    char* dst
    int64_t width, channels, lo, hi
    int kind
    float ca, sa, sx, sy, ratio


cdef void _band(const _Job* job, plain_pixel_t* tag) noexcept nogil:
    cdef const plain_pixel_t* src = <const plain_pixel_t*>job.src
    cdef plain_pixel_t* dst = <plain_pixel_t*>job.dst
    cdef int64_t y, x, c = job.channels, row = job.width * c, at
    cdef float fx, fy, base_x, base_y, yf
    cdef size_t pixel = c * sizeof(plain_pixel_t)
    for y in range(job.lo, job.hi):
        yf = <float>y
        base_x = -job.sx + yf * -job.sa
        base_y = -job.sy + yf * job.ca
        for x in range(job.width):
            fx = base_x + <float>x * job.ca
            fy = base_y + <float>x * job.sa
            at = y * row + x * c
            if fx - floorf(fx) >= job.ratio or fy - floorf(fy) >= job.ratio:
                memcpy(dst + at, src + at, pixel)
            else:
                memset(dst + at, 0, pixel)


cdef inline void _geometry(_Job* job, float tile, float ratio, float angle, float shift_x,
                           float shift_y) noexcept nogil:
    job.ca = cosf(angle) / tile
    job.sa = sinf(angle) / tile
    job.sx = shift_x / tile
    job.sy = shift_y / tile
    job.ratio = ratio


def grid_geometry(tile, ratio, angle, shift_x, shift_y):
    """(n, 5) float32 rows (cos(angle) / tile, sin(angle) / tile, shift_x / tile,
    shift_y / tile, ratio): each sample's grid constants as `grid_mask_batch` computes them
    (libm's cosf and sinf), for the GPU kernel (dali/ops/image/grid_mask.cu)."""
    params = np.broadcast_arrays(*(np.asarray(v, np.float32).reshape(-1) for v in
                                   (tile, ratio, angle, shift_x, shift_y)))
    cdef Py_ssize_t n = len(params[0]), i
    cdef const float[:] t = np.ascontiguousarray(params[0])
    cdef const float[:] r = np.ascontiguousarray(params[1])
    cdef const float[:] a = np.ascontiguousarray(params[2])
    cdef const float[:] sx = np.ascontiguousarray(params[3])
    cdef const float[:] sy = np.ascontiguousarray(params[4])
    out = np.empty((n, 5), np.float32)
    cdef float[:, ::1] o = out
    cdef _Job job
    with nogil:
        for i in range(n):
            _geometry(&job, t[i], r[i], a[i], sx[i], sy[i])
            o[i, 0], o[i, 1], o[i, 2], o[i, 3], o[i, 4] = job.ca, job.sa, job.sx, job.sy, \
                job.ratio
    return out


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef const _Job* job = (<const _Job*>ctx) + i
    if job.kind == 0:
        _band(job, <uint8_t*>NULL)
    elif job.kind == 1:
        _band(job, <int16_t*>NULL)
    elif job.kind == 2:
        _band(job, <int32_t*>NULL)
    else:
        _band(job, <float*>NULL)


def grid_mask_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, tile, ratio, angle,
                    shift_x, shift_y):
    """dst[i] = src[i] with the grid of sample i's parameters zeroed.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src, dst : BatchStorage
        Contiguous batches of HWC samples of the same shapes, uint8, int16, int32 or float.
    tile, ratio, angle, shift_x, shift_y : array_like (num_samples,)
        Per-sample grid parameters; tiles must be positive.
    """
    cdef Py_ssize_t n = src.num_samples, i, k, count = 0
    if not (src.is_contiguous and dst.is_contiguous) or src.ndim != 3:
        raise ValueError("grid_mask_batch needs contiguous HWC batch storage")
    shapes = np.ascontiguousarray(src.shapes, dtype=np.int64).reshape(n, 3)
    if dst.num_samples != n or dst.dtype != src.dtype or \
            not np.array_equal(np.asarray(dst.shapes).reshape(n, 3), shapes):
        raise ValueError("source and destination must have the same type and shapes")
    dtype = np.dtype(src.dtype)
    if dtype not in _TYPES:
        raise ValueError(f"unsupported type {dtype}")
    params = [np.broadcast_to(np.asarray(v, np.float32), (n,)) for v in
              (tile, ratio, angle, shift_x, shift_y)]
    if n and (params[0] <= 0).any():
        raise ValueError("tiles must be positive")
    if n == 0:
        return
    cdef const float[:] t = np.ascontiguousarray(params[0])
    cdef const float[:] r = np.ascontiguousarray(params[1])
    cdef const float[:] a = np.ascontiguousarray(params[2])
    cdef const float[:] sx = np.ascontiguousarray(params[3])
    cdef const float[:] sy = np.ascontiguousarray(params[4])
    cdef const int64_t[:, ::1] shape = shapes
    cdef const int64_t[::1] src_off = src.offsets
    cdef const int64_t[::1] dst_off = dst.offsets
    cdef int kind = _TYPES[dtype]
    cdef int64_t isz = dtype.itemsize, row_bytes, h
    bands_np = np.empty(n, np.int64)
    cdef int64_t[::1] bands = bands_np
    with nogil:
        for i in range(n):
            row_bytes = shape[i, 1] * shape[i, 2] * isz
            h = shape[i, 0]
            bands[i] = 0 if h == 0 or row_bytes == 0 else \
                min(h, max(1, h * row_bytes // _ROWS_BYTES))
            count += bands[i]
    keep = []
    cdef _Job* jobs = <_Job*>job_array(count, sizeof(_Job), keep)
    sizes = np.empty(count, np.int64)
    cdef int64_t[::1] size_view = sizes
    count = 0
    with nogil:
        for i in range(n):
            h = shape[i, 0]
            for k in range(bands[i]):
                jobs[count].src = src.data + src_off[i]
                jobs[count].dst = dst.data + dst_off[i]
                jobs[count].width = shape[i, 1]
                jobs[count].channels = shape[i, 2]
                jobs[count].lo = h * k // bands[i]
                jobs[count].hi = h * (k + 1) // bands[i]
                jobs[count].kind = kind
                _geometry(&jobs[count], t[i], r[i], a[i], sx[i], sy[i])
                size_view[count] = (jobs[count].hi - jobs[count].lo) * shape[i, 1] * \
                    shape[i, 2] * isz
                count += 1
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_BYTE)
