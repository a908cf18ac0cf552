# cython: boundscheck=False, wraparound=False, cdivision=True
"""A (banded) matrix applied along one axis of every float32 sample of a batch: the kernel of
fn.mel_filter_bank (a sparse bank of triangular filters) and fn.mfcc (a dense DCT matrix).

`AxisMatrix` holds the matrix and the non-zero band of each of its rows, made once by the
operator; `matmul_axis_batch` runs one work item per sample, or per slice of a large one
(outer rows, or inner columns when there is one outer row), all in one nogil call on the pool,
largest first.  The loop is in axis_matmul.h.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t

from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_MAC = 0.4            # the cost estimate the pool gets
cdef double _ITEM_MACS = 1e6             # work items of about this many multiply-adds


cdef extern from "axis_matmul.h" nogil:
    ctypedef struct dali_axis_matrix:
        const float* w
        const int64_t* lo
        const int64_t* hi
        int64_t nin, nout

    ctypedef struct dali_axis_matmul_job:
        const dali_axis_matrix* m
        const float* input "in"
        float* out
        int64_t inner, o0, o1, i0, i1

    void dali_axis_matmul_run(const dali_axis_matmul_job* j)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    dali_axis_matmul_run((<dali_axis_matmul_job*>ctx) + i)


cdef class AxisMatrix:
    """A float32 matrix (nout, nin) and the band [lo, hi) of non-zero columns of each row."""
    cdef readonly object weights
    cdef object lo, hi
    cdef dali_axis_matrix m
    cdef readonly int64_t macs       # multiply-adds per (outer, inner) position

    def __cinit__(self, weights):
        w = np.ascontiguousarray(weights, np.float32)
        if w.ndim != 2:
            raise ValueError("the matrix must be 2-D")
        nz = w != 0
        any_nz = nz.any(axis=1)
        lo = np.where(any_nz, nz.argmax(axis=1), 0).astype(np.int64)
        hi = np.where(any_nz, w.shape[1] - nz[:, ::-1].argmax(axis=1), 0).astype(np.int64)
        self.weights, self.lo, self.hi = w, lo, hi
        cdef const float[:, ::1] wv = w
        cdef const int64_t[::1] lv = lo
        cdef const int64_t[::1] hv = hi
        self.m.w = &wv[0, 0] if w.size else NULL
        self.m.lo = &lv[0] if lo.size else NULL
        self.m.hi = &hv[0] if hi.size else NULL
        self.m.nout, self.m.nin = w.shape[0], w.shape[1]
        self.macs = int((hi - lo).sum())

    @property
    def shape(self):
        return self.weights.shape


def matmul_axis_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, matrices, int axis):
    """dst[i] = matrices[i] applied along `axis` of src[i], for every sample.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src, dst : BatchStorage
        float32 batches (`dst` contiguous; `src` read where it is); src[i] has
        `matrices[i].shape[1]` elements along `axis`, dst[i] the same shape with
        `matrices[i].shape[0]` there.
    matrices : sequence of AxisMatrix
        One per sample (usually the same one).
    axis : int
        0 <= axis < ndim.
    """
    if not dst.is_contiguous:
        raise ValueError("matmul_axis_batch needs a contiguous destination")
    if src.dtype != np.float32 or dst.dtype != np.float32:
        raise TypeError("matmul_axis_batch reads and writes float32")
    cdef Py_ssize_t n = src.num_samples, i, k, d, count = 0
    cdef int nd = src.ndim
    if (dst.num_samples != n or dst.ndim != nd or not 0 <= axis < nd
            or len(matrices) != n):
        raise ValueError("the source, destination and matrices must match and have the axis")
    if n == 0:
        return
    # sizes, checks and work items in C loops: a batch of small spectrograms costs little
    # more than its NumPy calls would
    keep = [list(matrices)]
    cdef const dali_axis_matrix** mats = <const dali_axis_matrix**>job_array(
        n, sizeof(dali_axis_matrix*), keep)
    tables = np.empty((4, n), np.int64)
    cdef int64_t[:, ::1] t4 = tables       # outer, inner, multiply-adds, pieces per sample
    cdef AxisMatrix matrix
    for i in range(n):
        matrix = matrices[i]
        mats[i] = &matrix.m
        t4[2, i] = max(1, matrix.macs)
    cdef const int64_t[:, :] ss = src.shapes
    cdef const int64_t[:, :] ds = dst.shapes
    for i in range(n):
        if ss[i, axis] != mats[i].nin:
            raise ValueError(f"the samples' extents along axis {axis} do not match the "
                             "matrices")
    cdef int64_t o, c, p, t
    for i in range(n):
        o = c = 1
        for d in range(nd):
            if ds[i, d] != (mats[i].nout if d == axis else ss[i, d]):
                raise ValueError("the destination shapes do not match")
            if d < axis:
                o *= ss[i, d]
            elif d > axis:
                c *= ss[i, d]
        p = <int64_t>(<double>(o * c * t4[2, i]) / _ITEM_MACS)
        p = min(p, o if o > 1 else c)
        t4[0, i], t4[1, i], t4[3, i] = o, c, max(1, p)
        count += t4[3, i]
    cdef dali_axis_matmul_job* jobs = <dali_axis_matmul_job*>job_array(
        count, sizeof(dali_axis_matmul_job), keep)
    sizes = np.empty(count, np.int64)
    cdef int64_t[::1] size_view = sizes
    cdef const char** data = sample_data(src, keep)
    cdef const int64_t[::1] doff = dst.offsets
    k = 0
    with nogil:
        for i in range(n):
            o, c, p = t4[0, i], t4[1, i], t4[3, i]
            for t in range(p):
                jobs[k].m = mats[i]
                jobs[k].input = <const float*>data[i]
                jobs[k].out = <float*>(dst.data + doff[i])
                jobs[k].inner = c
                if o > 1 or p == 1:
                    jobs[k].o0, jobs[k].o1 = o * t // p, o * (t + 1) // p
                    jobs[k].i0, jobs[k].i1 = 0, c
                else:
                    jobs[k].o0, jobs[k].o1 = 0, o
                    jobs[k].i0, jobs[k].i1 = c * t // p, c * (t + 1) // p
                size_view[k] = (jobs[k].o1 - jobs[k].o0) * (jobs[k].i1 - jobs[k].i0) * t4[2, i]
                k += 1
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_MAC)
