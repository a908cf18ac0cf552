# cython: boundscheck=False, wraparound=False, cdivision=True
"""The non-silent region of every 1-D signal of a batch (fn.nonsilent_region): one work item
per signal, all in one nogil call on the pool, largest first.  The loop is in nonsilent.h.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int32_t, int64_t

from dali._ext.kernels.cast import CODES
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_ELEMENT = 3.0        # the cost estimate the pool gets


cdef extern from "nonsilent.h" nogil:
    ctypedef struct dali_nonsilent_job:
        const void* x
        int64_t n
        int32_t* begin
        int32_t* length

    ctypedef struct dali_nonsilent_args:
        int64_t window, reset
        float ratio, reference

    ctypedef void (*dali_nonsilent_loop)(const dali_nonsilent_args* a,
                                         const dali_nonsilent_job* j) noexcept nogil

    dali_nonsilent_loop dali_nonsilent_fn(int src)


cdef struct Job:
    dali_nonsilent_job job
    dali_nonsilent_args* args
    dali_nonsilent_loop fn


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    j.fn(j.args, &j.job)


def supports(dtype):
    """Whether the kernel reads signals of numpy `dtype` (the integers and float32)."""
    code = CODES.get(np.dtype(dtype))
    return code is not None and dali_nonsilent_fn(code) != NULL


def nonsilent_batch(ThreadPool pool, BatchStorage src, begin, length, int64_t window,
                    int64_t reset, double cutoff_db, double reference):
    """The (begin, length) of the non-silent region of every signal of `src`.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src : BatchStorage
        Contiguous signals (their elements in order) of a type `supports` accepts.
    begin, length : int32 ndarray (num_samples,)
        Written: the first sample of each region and its length (0, 0 when all is silent).
    window : int
        The short-term power's window (> 0).
    reset : int
        Recompute the float running sum at multiples of this (<= 0: never).
    cutoff_db : float
        The threshold in dB below the reference.
    reference : float
        The reference power (<= 0: each signal's largest short-term power).
    """
    if not src.is_contiguous:
        raise ValueError("nonsilent_batch needs contiguous batch storage")
    if not supports(src.dtype):
        raise TypeError(f"cannot read {src.dtype} signals")
    if window < 1:
        raise ValueError("the window must be positive")
    cdef Py_ssize_t n = src.num_samples, i
    cdef int32_t[::1] first = begin
    cdef int32_t[::1] size = length
    if first.shape[0] != n or size.shape[0] != n:
        raise ValueError(f"begin and length must have {n} elements")
    if n == 0:
        return
    vols = np.prod(np.asarray(src.shapes, np.int64).reshape(n, src.ndim), axis=1,
                   dtype=np.int64)
    keep = []
    cdef dali_nonsilent_args* args = <dali_nonsilent_args*>job_array(
        1, sizeof(dali_nonsilent_args), keep)
    args.window = window
    args.reset = reset
    args.ratio = <float>(10.0 ** (cutoff_db / 10.0))
    args.reference = <float>reference
    cdef dali_nonsilent_loop fn = dali_nonsilent_fn(CODES[src.dtype])
    cdef Job* jobs = <Job*>job_array(n, sizeof(Job), keep)
    cdef const int64_t[::1] v = vols
    cdef const int64_t[::1] off = np.ascontiguousarray(src.offsets, np.int64)
    with nogil:
        for i in range(n):
            jobs[i].job.x = src.data + off[i]
            jobs[i].job.n = v[i]
            jobs[i].job.begin = &first[i]
            jobs[i].job.length = &size[i]
            jobs[i].args = args
            jobs[i].fn = fn
    run_largest_first(pool, _run_job, jobs, vols, _NS_PER_ELEMENT)
    failed = np.flatnonzero(begin < 0)
    if failed.size:
        i = int(failed[0])
        raise MemoryError(f"sample {i}: cannot allocate the short-term power of its {v[i]} "
                          "values")
