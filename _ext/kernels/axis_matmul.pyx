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
    cdef Py_ssize_t n = src.num_samples, i, k, count = 0
    if (dst.num_samples != n or dst.ndim != src.ndim or not 0 <= axis < src.ndim
            or len(matrices) != n):
        raise ValueError("the source, destination and matrices must match and have the axis")
    shapes = np.asarray(src.shapes, np.int64).reshape(n, src.ndim)
    # one matrix for the whole batch (the usual case): no Python loop over the samples
    one = n > 0 and all(mat is matrices[0] for mat in matrices)
    if not ((shapes[:, axis] == matrices[0].shape[1]).all() if one else
            all(s == mat.shape[1] for s, mat in zip(shapes[:, axis].tolist(), matrices))):
        raise ValueError(f"the samples' extents along axis {axis} do not match the matrices")
    want = shapes.copy()
    want[:, axis] = matrices[0].shape[0] if one else [mat.shape[0] for mat in matrices]
    if not np.array_equal(np.asarray(dst.shapes, np.int64).reshape(n, dst.ndim), want):
        raise ValueError("the destination shapes do not match")
    if n == 0:
        return
    outer = np.prod(shapes[:, :axis], axis=1, dtype=np.int64)
    inner = np.prod(shapes[:, axis + 1:], axis=1, dtype=np.int64)
    macs = np.maximum(1, np.full(n, matrices[0].macs, np.int64) if one else
                      np.array([mat.macs for mat in matrices], np.int64))
    pieces = np.maximum(1, np.minimum((outer * inner * macs / _ITEM_MACS).astype(np.int64),
                                      np.where(outer > 1, outer, inner)))
    count = int(pieces.sum())
    keep = [list(matrices)]
    cdef dali_axis_matmul_job* jobs = <dali_axis_matmul_job*>job_array(
        count, sizeof(dali_axis_matmul_job), keep)
    cdef const dali_axis_matrix** mats = <const dali_axis_matrix**>job_array(
        n, sizeof(dali_axis_matrix*), keep)
    cdef AxisMatrix matrix
    for i in range(n):
        matrix = matrices[i]
        mats[i] = &matrix.m
    sizes = np.empty(count, np.int64)
    cdef int64_t[::1] size_view = sizes
    cdef const char** data = sample_data(src, keep)
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets, np.int64)
    cdef const int64_t[::1] outer_v = outer
    cdef const int64_t[::1] inner_v = inner
    cdef const int64_t[::1] pieces_v = pieces
    cdef const int64_t[::1] macs_v = macs
    cdef int64_t o, c, p, t
    k = 0
    with nogil:
        for i in range(n):
            o, c, p = outer_v[i], inner_v[i], pieces_v[i]
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
                size_view[k] = (jobs[k].o1 - jobs[k].o0) * (jobs[k].i1 - jobs[k].i0) * macs_v[i]
                k += 1
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_MAC)
