"""Pastes regions of source samples into zeroed output samples: the kernel of fn.multi_paste.

`paste_batch(pool, srcs, dst, regions, starts)` zeroes every output sample of `dst` (HWC, any
element type) and copies into it, in order, its regions: rows `starts[i]` to `starts[i + 1]`
of `regions`, each (input, source sample, in_y, in_x, out_y, out_x, height, width) with the
source an HWC sample of batch `srcs[input]`.  Only bytes move; a later region overwrites an
earlier one.  One work item per output sample, all in one nogil call on the pool, largest
first.  A batch of more than `_STREAM_BYTES` is written with streaming stores (paste.h): 64
images of 224x224x3 in ~0.48 instead of ~0.73 ms on two threads, and the source batch that
an external_source copies next stays in the cache.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t

from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_BYTE = 0.3          # the cost estimate the pool gets
cdef Py_ssize_t _STREAM_BYTES = 8 << 20  # larger outputs are written with streaming stores


cdef extern from "paste.h" nogil:
    ctypedef struct dali_paste_region:
        const char* src
        int64_t src_row
        int64_t dst_offset
        int64_t rows
        int64_t row_bytes

    ctypedef struct dali_paste_job:
        char* dst
        int64_t dst_bytes
        int64_t dst_row
        const dali_paste_region* regions
        int64_t count
        int stream

    void dali_paste_run(const dali_paste_job* job)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    dali_paste_run((<dali_paste_job*>ctx) + i)


def paste_batch(ThreadPool pool, srcs, BatchStorage dst, regions, starts):
    """Zero each output sample and paste its regions into it.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    srcs : sequence of BatchStorage
        Batches (contiguous or per-sample) of HWC samples of dst's element type and channel
        count.
    dst : BatchStorage
        Contiguous batch of HWC samples, written in full.
    regions : array_like (m, 8) of int
        (input, source sample, in_y, in_x, out_y, out_x, height, width) per region; each must
        lie inside its source and its output sample.
    starts : array_like (num_samples + 1,) of int
        Output sample i gets regions starts[i] to starts[i + 1] (in that order).
    """
    cdef Py_ssize_t n = dst.num_samples, m, i, r
    if not dst.is_contiguous or dst.ndim != 3 or any(
            s.ndim != 3 or s.dtype != dst.dtype for s in srcs):
        raise ValueError("paste_batch needs HWC batches of one element type, dst contiguous")
    regions = np.ascontiguousarray(regions, dtype=np.int64).reshape(-1, 8)
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    m = len(regions)
    if starts.shape != (n + 1,) or starts[0] != 0 or starts[n] != m or \
            (np.diff(starts) < 0).any():
        raise ValueError(f"starts must rise from 0 to {m} in {n + 1} values")
    out_shape = np.asarray(dst.shapes, np.int64).reshape(n, 3)
    channels = out_shape[:, 2]
    itemsize = np.dtype(dst.dtype).itemsize
    owner = np.repeat(np.arange(n), np.diff(starts))
    src_off = np.zeros(m, np.int64)
    src_row = np.zeros(m, np.int64)
    if m:
        k, j = regions[:, 0], regions[:, 1]
        if (k < 0).any() or (k >= len(srcs)).any():
            raise ValueError("region input out of range")
        for kk, s in enumerate(srcs):
            mine = np.flatnonzero(k == kk)
            if not len(mine):
                continue
            if ((j[mine] < 0) | (j[mine] >= s.num_samples)).any():
                raise ValueError("region source sample out of range")
            shape = np.asarray(s.shapes, np.int64).reshape(-1, 3)[j[mine]]
            part = regions[mine]
            if ((shape[:, 2] != channels[owner[mine]]).any() or (part[:, 2:4] < 0).any() or
                    (part[:, 6:8] < 0).any() or
                    (part[:, 2:4] + part[:, 6:8] > shape[:, :2]).any()):
                raise ValueError("regions must lie inside their source samples, with the "
                                 "output's channels")
            src_row[mine] = shape[:, 1] * shape[:, 2] * itemsize
            src_off[mine] = part[:, 2] * src_row[mine] + part[:, 3] * shape[:, 2] * itemsize
        dst_shape = out_shape[owner]
        if ((regions[:, 4:6] < 0).any() or
                (regions[:, 4:6] + regions[:, 6:8] > dst_shape[:, :2]).any()):
            raise ValueError("regions must lie inside their output samples")
    if n == 0:
        return
    keep = []
    cdef dali_paste_region* regs = <dali_paste_region*>job_array(
        m, sizeof(dali_paste_region), keep)
    cdef dali_paste_job* jobs = <dali_paste_job*>job_array(n, sizeof(dali_paste_job), keep)
    cdef const int64_t[:, ::1] reg = regions
    cdef const int64_t[::1] at = starts
    cdef const int64_t[::1] soff = src_off
    cdef const int64_t[::1] srow = src_row
    cdef const int64_t[:, ::1] oshape = out_shape
    cdef const int64_t[::1] doff = dst.offsets
    cdef int64_t isz = itemsize
    cdef const char*** data = <const char***>job_array(len(srcs), sizeof(char**), keep)
    for r in range(len(srcs)):
        data[r] = sample_data(<BatchStorage?>srcs[r], keep)
    sizes = np.empty(n, np.int64)
    cdef int64_t[::1] size_view = sizes
    cdef int stream = dst.nbytes > _STREAM_BYTES
    with nogil:
        for r in range(m):
            regs[r].src = data[reg[r, 0]][reg[r, 1]] + soff[r]
            regs[r].src_row = srow[r]
            regs[r].rows = reg[r, 6]
        for i in range(n):
            jobs[i].dst = dst.data + doff[i]
            jobs[i].dst_row = oshape[i, 1] * oshape[i, 2] * isz
            jobs[i].dst_bytes = oshape[i, 0] * jobs[i].dst_row
            jobs[i].regions = regs + at[i]
            jobs[i].count = at[i + 1] - at[i]
            jobs[i].stream = stream
            size_view[i] = jobs[i].dst_bytes
            for r in range(at[i], at[i + 1]):
                regs[r].dst_offset = reg[r, 4] * jobs[i].dst_row + reg[r, 5] * oshape[i, 2] * isz
                regs[r].row_bytes = reg[r, 7] * oshape[i, 2] * isz
                size_view[i] += regs[r].rows * regs[r].row_bytes
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_BYTE)
