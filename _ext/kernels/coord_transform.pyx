"""Affine transforms of point sets, the CPU kernel of fn.coord_transform.

Every sample (or frame of a sequence) is a run of points of `cols` coordinates stored back to
back; each part has its own (rows, cols + 1) float32 matrix `[M | T]` and every point `x`
becomes `M x + T` (`rows` coordinates), computed in float32 as DALI does: the products summed
in column order from zero, then T added.  Integer outputs round half away from zero and
saturate (convert.pxd).  `transform_batch` cuts the batch's points (all parts back to back) into
work items of at most `_CHUNK` points, so that many tiny samples make one item, and runs them
on the pool, largest first, in one nogil call.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint16_t

from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

from dali._ext.kernels.convert cimport store

cnp.import_array()

cdef int64_t _CHUNK = 16384             # points per work item (at most)
cdef double _NS_PER_ELEMENT = 0.5       # per point and matrix element: the pool's estimate

ctypedef fused point_t:
    uint8_t
    int16_t
    uint16_t
    int32_t
    float

ctypedef fused point_out_t:
    uint8_t
    int16_t
    uint16_t
    int32_t
    float


cdef struct Job:
    # points [lo, hi) of the batch; `part` is the part of point lo
    const char* src
    char* dst
    const float* m                 # the matrices, `mstep` floats apart
    const int64_t* ends            # where every part's points end
    int64_t lo, hi, part, mstep
    int rows, cols
    int sk, dk


cdef void _apply(const point_t* src, point_out_t* dst, const Job* j) noexcept nogil:
    cdef int64_t p = j.lo, end, part = j.part
    cdef int r, c, rows = j.rows, cols = j.cols
    cdef const float* row
    cdef float acc
    cdef const point_t* x
    cdef point_out_t* y
    while p < j.hi:
        end = min(j.ends[part], j.hi)
        while p < end:
            x = src + p * cols
            y = dst + p * rows
            for r in range(rows):
                row = j.m + part * j.mstep + r * (cols + 1)
                acc = 0
                for c in range(cols):
                    acc = acc + row[c] * <float>x[c]
                store(&y[r], acc + row[cols])
            p += 1
        part += 1


cdef void _apply_from(const point_t* src, const Job* j) noexcept nogil:
    if j.dk == cnp.NPY_FLOAT32:
        _apply(src, <float*>j.dst, j)
    elif j.dk == cnp.NPY_UINT8:
        _apply(src, <uint8_t*>j.dst, j)
    elif j.dk == cnp.NPY_INT16:
        _apply(src, <int16_t*>j.dst, j)
    elif j.dk == cnp.NPY_UINT16:
        _apply(src, <uint16_t*>j.dst, j)
    else:
        _apply(src, <int32_t*>j.dst, j)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef const Job* j = (<const Job*>ctx) + i
    if j.sk == cnp.NPY_FLOAT32:
        _apply_from(<const float*>j.src, j)
    elif j.sk == cnp.NPY_UINT8:
        _apply_from(<const uint8_t*>j.src, j)
    elif j.sk == cnp.NPY_INT16:
        _apply_from(<const int16_t*>j.src, j)
    elif j.sk == cnp.NPY_UINT16:
        _apply_from(<const uint16_t*>j.src, j)
    else:
        _apply_from(<const int32_t*>j.src, j)


TYPES = tuple(np.dtype(t) for t in (np.uint8, np.int16, np.uint16, np.int32, np.float32))
_NUMS = {t.num for t in TYPES}


def transform_batch(ThreadPool pool, cnp.ndarray src, cnp.ndarray dst, matrices, points):
    """`dst[p] = M @ src[p] + T` for every point p, with the matrix of the point's part.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src : ndarray (P, cols), C-contiguous, of uint8, int16, uint16, int32 or float32
        All points of the batch, part after part.
    dst : ndarray (P, rows), C-contiguous, of one of those types
    matrices : ndarray (parts, rows, cols + 1) or (1, rows, cols + 1) of float32
        `[M | T]` of every part, or one for all parts.
    points : array_like (parts,) of int64
        The number of points of every part (summing to P).
    """
    if src.dtype.num not in _NUMS or dst.dtype.num not in _NUMS:
        raise TypeError(f"unsupported types {src.dtype} -> {dst.dtype}")
    if not (src.flags.c_contiguous and dst.flags.c_contiguous) or src.ndim != 2 or \
            dst.ndim != 2 or src.shape[0] != dst.shape[0]:
        raise ValueError("src and dst must be C-contiguous (points, coordinates) arrays with "
                         "the same number of points")
    cdef const float[:, :, ::1] m = np.ascontiguousarray(matrices, dtype=np.float32)
    counts = np.asarray(points, dtype=np.int64).reshape(-1)
    cdef Py_ssize_t parts = counts.shape[0], k
    cdef int rows = dst.shape[1], cols = src.shape[1]
    if m.shape[0] not in (1, parts) or m.shape[1] != rows or m.shape[2] != cols + 1:
        raise ValueError(f"matrices must have shape ({parts} or 1, {rows}, {cols + 1}), got "
                         f"{np.shape(matrices)}")
    if (counts < 0).any():
        raise ValueError("negative point counts")
    ends_array = np.cumsum(counts)
    cdef const int64_t[::1] ends = ends_array
    cdef int64_t total = ends[parts - 1] if parts else 0, chunks, part = 0
    if total != src.shape[0]:
        raise ValueError("the parts' point counts must sum to the number of points")
    if total == 0 or rows == 0:
        return
    chunks = (total + _CHUNK - 1) // _CHUNK
    keep = []
    cdef Job* jobs = <Job*>job_array(chunks, sizeof(Job), keep)
    sizes = np.empty(chunks, dtype=np.int64)
    cdef int64_t[::1] size_view = sizes
    cdef int sk = src.dtype.num, dk = dst.dtype.num
    cdef const char* sp = <const char*>cnp.PyArray_DATA(src)
    cdef char* dp = <char*>cnp.PyArray_DATA(dst)
    cdef int64_t mstep = 0 if m.shape[0] == 1 else rows * (cols + 1)
    with nogil:
        for k in range(chunks):
            j = &jobs[k]
            j.src, j.dst, j.m, j.ends, j.mstep = sp, dp, &m[0, 0, 0], &ends[0], mstep
            j.lo = total * k // chunks
            j.hi = total * (k + 1) // chunks
            while ends[part] <= j.lo:
                part += 1
            j.part = part
            j.rows, j.cols, j.sk, j.dk = rows, cols, sk, dk
            size_view[k] = (j.hi - j.lo) * rows * (cols + 1)
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_ELEMENT)
