# cython: boundscheck=False, wraparound=False, cdivision=True
"""The decibel conversion of every float32 sample of a batch (fn.to_decibels): one work item per
sample (its maximum, when it is the reference, then its elements), all in one nogil call on the
pool, largest first.  The loop is in decibels.h, with an AVX2 path taken at run time (`avx2`).
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t

from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_ELEMENT = 5.0        # the cost estimate the pool gets


cdef extern from "decibels.h" nogil:
    ctypedef struct dali_decibels_job:
        const float* x
        float* out
        int64_t n
        float multiplier, reference, min_ratio
        int use_max

    int dali_decibels_avx2
    void dali_decibels_detect()
    void dali_decibels_run(const dali_decibels_job* j)


dali_decibels_detect()


def avx2(on=None):
    """Whether the conversion takes the AVX2 path; `on=False` switches it off (on only where
    the CPU has AVX2).  For tests: both paths give the same results."""
    global dali_decibels_avx2
    if on is not None:
        dali_decibels_detect()
        dali_decibels_avx2 = dali_decibels_avx2 and bool(on)
    return bool(dali_decibels_avx2)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    dali_decibels_run((<dali_decibels_job*>ctx) + i)


def decibels_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, float multiplier,
                   float reference, float cutoff_db):
    """dst[i] = multiplier * log10(max(10^(cutoff_db / multiplier), src[i] / ref)), ref being
    `reference`, or the sample's maximum when `reference` is 0.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src, dst : BatchStorage
        float32 batches of the same sample sizes (`dst` contiguous; `src` read where it is).
    multiplier : float
        Not 0.
    reference, cutoff_db : float
    """
    if not dst.is_contiguous:
        raise ValueError("decibels_batch needs a contiguous destination")
    if src.dtype != np.float32 or dst.dtype != np.float32:
        raise TypeError("decibels_batch reads and writes float32")
    if multiplier == 0:
        raise ValueError("the multiplier must not be 0")
    cdef Py_ssize_t n = src.num_samples, i
    if dst.num_samples != n:
        raise ValueError(f"{n} source samples but {dst.num_samples} destination samples")
    vols = np.prod(np.asarray(src.shapes, np.int64).reshape(n, src.ndim), axis=1,
                   dtype=np.int64)
    if not np.array_equal(vols, np.prod(np.asarray(dst.shapes, np.int64).reshape(n, dst.ndim),
                                        axis=1, dtype=np.int64)):
        raise ValueError("source and destination samples must have the same sizes")
    if n == 0:
        return
    keep = []
    cdef const char** data = sample_data(src, keep)
    cdef dali_decibels_job* jobs = <dali_decibels_job*>job_array(
        n, sizeof(dali_decibels_job), keep)
    cdef const int64_t[::1] v = vols
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets, np.int64)
    cdef float min_ratio = <float>(10.0 ** (cutoff_db / multiplier))
    with nogil:
        for i in range(n):
            jobs[i].x = <const float*>data[i]
            jobs[i].out = <float*>(dst.data + doff[i])
            jobs[i].n = v[i]
            jobs[i].multiplier = multiplier
            jobs[i].reference = reference
            jobs[i].min_ratio = min_ratio
            jobs[i].use_max = reference == 0
    run_largest_first(pool, _run_job, jobs, vols, _NS_PER_ELEMENT)
