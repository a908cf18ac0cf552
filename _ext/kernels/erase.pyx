"""Copies every sample of a batch and fills boxes of it with a value: the kernel of fn.erase.

`erase_batch(pool, src, dst, boxes, starts, fill, channel_axis)`: output sample i is input
sample i with the boxes `starts[i]` to `starts[i + 1]` of `boxes` (rows of `lo` then `hi`,
one value per dimension, clipped to the sample) set to its fill values (`fill[i]`: one value,
or one per channel along `channel_axis`), in order.  Only bytes move (erase.h).  One work item
per sample, all in one nogil call on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_BYTE = 0.2          # the cost estimate the pool gets


cdef extern from "erase.h" namespace "dali_erase" nogil:
    enum:
        MAX_DIMS

    ctypedef struct Job:
        const char* src
        char* dst
        int64_t bytes
        int ndim
        const int64_t* shape
        const int64_t* boxes
        int64_t count
        int channel_axis
        const char* fill
        int64_t nfill
        int64_t itemsize
        int failed

    void run(Job* job)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    run((<Job*>ctx) + i)


def erase_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, boxes, starts, fill,
                int channel_axis=-1):
    """dst[i] = src[i] with its boxes filled.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src, dst : BatchStorage
        Contiguous batches of the same type and sample shapes (at least one dimension).
    boxes : array_like (m, 2, ndim) of int
        The boxes' first and end (exclusive) indices; clipped to the samples here.
    starts : array_like (num_samples + 1,) of int
        Sample i gets boxes starts[i] to starts[i + 1].
    fill : array (num_samples, k) of dst's type
        One value (k = 1) or one per channel (k = extent of `channel_axis` in every sample).
    channel_axis : int
        The axis whose index picks the fill value when k > 1.
    """
    cdef Py_ssize_t n = src.num_samples, i
    cdef int ndim = src.ndim
    if not (src.is_contiguous and dst.is_contiguous):
        raise ValueError("erase_batch needs contiguous batch storage")
    shapes = np.ascontiguousarray(src.shapes, dtype=np.int64).reshape(n, ndim)
    if dst.num_samples != n or dst.dtype != src.dtype or \
            not np.array_equal(np.asarray(dst.shapes).reshape(n, ndim), shapes):
        raise ValueError("source and destination must have the same type and shapes")
    if not 1 <= ndim <= MAX_DIMS:
        raise ValueError(f"1 to {MAX_DIMS} dimensions, got {ndim}")
    boxes = np.asarray(boxes, dtype=np.int64).reshape(-1, 2, ndim)
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    m = len(boxes)
    if starts.shape != (n + 1,) or starts[0] != 0 or starts[n] != m or \
            (np.diff(starts) < 0).any():
        raise ValueError(f"starts must rise from 0 to {m} in {n + 1} values")
    owner = np.repeat(np.arange(n), np.diff(starts))
    boxes = np.ascontiguousarray(np.clip(boxes, 0, shapes[owner][:, None, :]))
    dtype = np.dtype(src.dtype)
    fill = np.ascontiguousarray(fill, dtype)
    if fill.ndim != 2 or fill.shape[0] != n or fill.shape[1] < 1:
        raise ValueError(f"fill must have shape ({n}, k), got {fill.shape}")
    cdef Py_ssize_t nfill = fill.shape[1]
    if nfill > 1 and n and (not 0 <= channel_axis < ndim or
                            (shapes[:, channel_axis] != nfill).any()):
        raise ValueError("per-channel fill values need a channel axis with as many channels "
                         "in every sample")
    if n == 0:
        return
    keep = []
    cdef Job* jobs = <Job*>job_array(n, sizeof(Job), keep)
    cdef const int64_t[:, ::1] shape_view = shapes
    cdef const int64_t[::1] at = starts
    cdef const int64_t[::1] src_off = src.offsets
    cdef const int64_t[::1] dst_off = dst.offsets
    cdef const int64_t* box_data = <const int64_t*>cnp.PyArray_DATA(boxes)
    cdef const char* fill_data = <const char*>cnp.PyArray_DATA(fill)
    cdef int64_t fill_stride = fill.strides[0], isz = dtype.itemsize, k
    sizes = np.empty(n, np.int64)
    cdef int64_t[::1] size_view = sizes
    with nogil:
        for i in range(n):
            jobs[i].src = src.data + src_off[i]
            jobs[i].dst = dst.data + dst_off[i]
            jobs[i].bytes = isz
            for k in range(ndim):
                jobs[i].bytes *= shape_view[i, k]
            jobs[i].ndim = ndim
            jobs[i].shape = &shape_view[i, 0]
            jobs[i].boxes = box_data + at[i] * 2 * ndim
            jobs[i].count = at[i + 1] - at[i]
            jobs[i].channel_axis = channel_axis
            jobs[i].fill = fill_data + i * fill_stride
            jobs[i].nfill = nfill
            jobs[i].itemsize = isz
            size_view[i] = jobs[i].bytes
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_BYTE)
    for i in range(n):
        if jobs[i].failed:
            raise MemoryError("cannot allocate the erase kernel's row buffers")
