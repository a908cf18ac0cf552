# cython: boundscheck=False, wraparound=False, cdivision=True
"""The non-silent region of every 1-D signal of a batch (fn.nonsilent_region): one work item
per group of consecutive signals (up to DALI_NONSILENT_GROUP, fewer when that would leave a
thread of the pool idle), all in one nogil call on the pool, largest first.  The loop is in
nonsilent.h.  The signals are read where they are (`sample_data`), contiguous or not.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int32_t, int64_t

from dali._ext.kernels.batch_shapes cimport volume
from dali._ext.kernels.cast import CODES
from dali._ext.kernels.sample_data cimport sample_data
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
                                         const dali_nonsilent_job* jobs,
                                         int64_t count) noexcept nogil
    enum:
        DALI_NONSILENT_GROUP

    dali_nonsilent_loop dali_nonsilent_fn(int src)


cdef struct Ctx:
    dali_nonsilent_args args
    dali_nonsilent_loop fn
    dali_nonsilent_job* jobs
    int64_t n, group


cdef void _run_group(void* ctx, int64_t k) noexcept nogil:
    cdef Ctx* c = <Ctx*>ctx
    cdef int64_t first = k * c.group
    c.fn(&c.args, c.jobs + first, min(c.group, c.n - first))


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
        Signals (their elements in order) of a type `supports` accepts, contiguous or not.
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
    keep = []
    cdef const char** data = sample_data(src, keep)
    cdef Ctx ctx
    ctx.args.window = window
    ctx.args.reset = reset
    ctx.args.ratio = <float>(10.0 ** (cutoff_db / 10.0))
    ctx.args.reference = <float>reference
    ctx.fn = dali_nonsilent_fn(CODES[src.dtype])
    ctx.jobs = <dali_nonsilent_job*>job_array(n, sizeof(dali_nonsilent_job), keep)
    ctx.n = n
    ctx.group = max(1, min(<Py_ssize_t>DALI_NONSILENT_GROUP,
                           n // (pool.num_threads if pool is not None else 1)))
    cdef const int64_t[:, ::1] shapes = src.shapes
    sizes = np.zeros((n + ctx.group - 1) // ctx.group, np.int64)
    cdef int64_t[::1] size_of = sizes
    with nogil:
        for i in range(n):
            ctx.jobs[i].x = data[i]
            ctx.jobs[i].n = volume(shapes, i)
            ctx.jobs[i].begin = &first[i]
            ctx.jobs[i].length = &size[i]
            size_of[i // ctx.group] += ctx.jobs[i].n
    run_largest_first(pool, _run_group, &ctx, sizes, _NS_PER_ELEMENT)
    for i in range(n):
        if first[i] < 0:
            raise MemoryError(f"sample {i}: cannot allocate the short-term power of its "
                              f"{ctx.jobs[i].n} values")
