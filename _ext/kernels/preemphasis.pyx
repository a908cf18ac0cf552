# cython: boundscheck=False, wraparound=False, cdivision=True
"""The preemphasis filter over a batch of signals (fn.preemphasis_filter): one coefficient per
sample, the samples taken as flat sequences of elements.

The loop (preemphasis.h) reads each element and the one before it, so a long sample is cut
into pieces of `PIECE` elements that run independently; all pieces run in one nogil call on
the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t

from dali._ext.kernels.cast import CODES
from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_ELEMENT = 1.0    # the cost estimate (per element) the pool gets

cdef enum:
    PIECE = 1 << 16                  # elements per work item at most


cdef extern from "preemphasis.h" nogil:
    ctypedef struct dali_preemph_job:
        const void* src
        void* dst
        int64_t n, lo, hi
        float coeff
        int border

    ctypedef void (*dali_preemph_loop)(const dali_preemph_job* job) noexcept nogil

    dali_preemph_loop dali_preemph_fn(int dst, int src)


cdef struct Job:
    dali_preemph_job job
    dali_preemph_loop fn


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    j.fn(&j.job)


BORDERS = {"zero": 0, "clamp": 1, "reflect": 2}


def supports(src_dtype, dst_dtype):
    """Whether the filter reads `src_dtype` and writes `dst_dtype` (numpy dtypes)."""
    src, dst = CODES.get(np.dtype(src_dtype)), CODES.get(np.dtype(dst_dtype))
    return src is not None and dst is not None and dali_preemph_fn(dst, src) != NULL


def preemphasis_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, coeffs, border):
    """dst[i][t] = src[i][t] - coeffs[i] * src[i][t - 1] over the flat elements of each sample,
    src[i][-1] being the `border` value ("zero": 0, "clamp": src[i][0], "reflect": src[i][1],
    0 for a sample of one element).

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src, dst : BatchStorage
        Batches with the same number of samples and of elements per sample (`dst`
        contiguous; `src` read where it is); the types are any pair `supports` accepts.
    coeffs : array_like (num_samples,)
        The coefficient of every sample.
    border : str
        "zero", "clamp" or "reflect".
    """
    if not dst.is_contiguous:
        raise ValueError("preemphasis_batch needs a contiguous destination")
    cdef Py_ssize_t n = src.num_samples, i, k, count = 0
    if dst.num_samples != n:
        raise ValueError(f"{n} source samples but {dst.num_samples} destination samples")
    if not supports(src.dtype, dst.dtype):
        raise TypeError(f"cannot filter {src.dtype} into {dst.dtype}")
    if border not in BORDERS:
        raise ValueError(f"unknown border {border!r}")
    cdef dali_preemph_loop fn = dali_preemph_fn(CODES[dst.dtype], CODES[src.dtype])
    cdef int mode = BORDERS[border]
    vols = np.prod(np.asarray(src.shapes, np.int64).reshape(n, src.ndim), axis=1, dtype=np.int64)
    if not np.array_equal(vols, np.prod(np.asarray(dst.shapes, np.int64).reshape(n, dst.ndim),
                                        axis=1, dtype=np.int64)):
        raise ValueError("source and destination samples must have the same sizes")
    cdef const float[::1] c = np.ascontiguousarray(coeffs, np.float32).reshape(-1)
    if c.shape[0] != n:
        raise ValueError(f"{c.shape[0]} coefficients for {n} samples")
    cdef const int64_t[::1] v = vols
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets, np.int64)
    cdef int64_t lo
    for i in range(n):
        count += (v[i] + PIECE - 1) // PIECE
    keep = []
    cdef const char** data = sample_data(src, keep)
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    sizes = np.empty(count, np.int64)
    cdef int64_t[::1] size_view = sizes
    k = 0
    with nogil:
        for i in range(n):
            lo = 0
            while lo < v[i]:
                jobs[k].fn = fn
                jobs[k].job.src = data[i]
                jobs[k].job.dst = dst.data + doff[i]
                jobs[k].job.n = v[i]
                jobs[k].job.lo = lo
                jobs[k].job.hi = min(v[i], lo + PIECE)
                jobs[k].job.coeff = c[i]
                jobs[k].job.border = mode
                size_view[k] = jobs[k].job.hi - lo
                lo = jobs[k].job.hi
                k += 1
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_ELEMENT)
