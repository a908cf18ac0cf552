# cython: boundscheck=False, wraparound=False, cdivision=True
"""Random draws of fn.random.* written straight into the output batch, without the GIL.

`draw_batch` fills every sample of a `BatchStorage` with the numbers `rng.uniform` /
`rng.normal` give for it (same key, sample ids and stream), transformed and converted as
random_draws.h states, in one call on the thread pool: each sample is cut into chunks of
`CHUNK` elements (an even number, so a chunk starts on a Philox block) that run as separate
items, so the values do not depend on the number of threads.  `beta_batch` does the same for
fn.random.beta's Marsaglia-Tsang gamma draws.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint32_t, uint64_t

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, item_fn, job_array, run_largest_first

cnp.import_array()

cdef extern from "philox_blocks.h" nogil:
    void dali_philox_detect()

cdef extern from "random_draws.h" nogil:
    enum:
        DALI_DRAW_UNIFORM
        DALI_DRAW_RINT
        DALI_DRAW_NORMAL
        DALI_DRAW_COIN
        DALI_DRAW_INDEX
    ctypedef struct DaliDrawJob:
        char* out
        int64_t first
        int64_t count
        int64_t sample_id
        double a, b, end
    ctypedef struct DaliDrawBatch:
        uint64_t key
        uint32_t stream
        int mode, dtype
        double lo, hi
    void dali_draw_run(const DaliDrawBatch* bt, const DaliDrawJob* j)
    ctypedef struct DaliBetaJob:
        char* out
        int64_t first
        int64_t count
        int64_t sample_id
        double alpha, beta
        int failed
    void dali_beta_run(uint64_t key, int is_double, DaliBetaJob* j)

dali_philox_detect()

CHUNK = 1 << 16
# cost estimates (ns per element) deciding whether a batch wakes the pool
cdef double _NS_UNIFORM = 2.5
cdef double _NS_NORMAL = 20.0

MODES = {"uniform": DALI_DRAW_UNIFORM, "rint": DALI_DRAW_RINT, "normal": DALI_DRAW_NORMAL,
         "coin": DALI_DRAW_COIN, "index": DALI_DRAW_INDEX}
_DTYPES = {np.dtype(t): k for k, t in enumerate(
    (np.float32, np.float64, np.bool_, np.uint8, np.uint16, np.uint32, np.uint64, np.int8,
     np.int16, np.int32, np.int64))}
_CLAMP = {}

ctypedef struct _Ctx:
    DaliDrawBatch batch
    DaliDrawJob* jobs
    DaliBetaJob* beta_jobs

cdef void _run_item(void* ctx, int64_t item) noexcept nogil:
    cdef _Ctx* c = <_Ctx*>ctx
    dali_draw_run(&c.batch, &c.jobs[item])


cdef void _run_beta(void* ctx, int64_t item) noexcept nogil:
    cdef _Ctx* c = <_Ctx*>ctx
    dali_beta_run(c.batch.key, c.batch.dtype, &c.beta_jobs[item])


def _clamp_range(dtype):
    if dtype.kind not in "iu":
        return 0.0, 0.0
    info = np.iinfo(dtype)
    hi = np.float64(info.max)
    if int(hi) > info.max:          # the 64-bit maxima: the largest double below them
        hi = np.nextafter(hi, 0.0)
    return float(info.min), float(hi)


for _t in _DTYPES:
    _CLAMP[_t] = _clamp_range(_t)


cdef int64_t _layout(BatchStorage out, int64_t chunk, int64_t[::1] counts,
                     list samples) except -1:
    """Elements per sample into `counts`; the number of chunks."""
    cdef const int64_t[:, :] shapes = out.shapes
    cdef Py_ssize_t i, d
    cdef int64_t c, jobs = 0
    for i in range(out.num_samples):
        c = 1
        for d in range(shapes.shape[1]):
            c *= shapes[i, d]
        counts[i] = c
        jobs += (c + chunk - 1) // chunk
    return jobs


cdef char* _sample_ptr(BatchStorage out, const int64_t[::1] offsets, list samples,
                       Py_ssize_t i):
    if samples is None:
        return out.data + offsets[i]
    return <char*>cnp.PyArray_DATA(samples[i])


cdef _run(ThreadPool pool, item_fn fn, _Ctx* ctx, int64_t[::1] sizes, int64_t n,
          double ns_per_element):
    """fn over the n items: inline without the GIL when the pool would not be woken."""
    cdef int64_t total = 0, k
    for k in range(n):
        total += sizes[k]
    if (pool is None or pool.num_threads == 1 or n < 2
            or total * ns_per_element < pool.inline_cost):
        with nogil:
            for k in range(n):
                fn(ctx, k)
        return
    run_largest_first(pool, fn, ctx, np.asarray(sizes)[:n], ns_per_element)


cdef class _Chunks:
    """How the samples of a batch are cut into work items of at most `chunk` elements: the
    element counts, where the samples are (offsets into one buffer, or per-sample arrays) and
    the number of items."""
    cdef int64_t[::1] counts
    cdef list samples
    cdef const int64_t[::1] offsets
    cdef int64_t chunk, total_jobs


cdef _Chunks _chunks(BatchStorage out, int64_t chunk):
    cdef _Chunks ch = _Chunks.__new__(_Chunks)
    ch.counts = np.empty(out.num_samples, np.int64)
    ch.chunk = chunk
    ch.samples = None
    if out.data != NULL and out.offsets is not None:
        ch.offsets = out.offsets
    else:
        ch.samples = out.samples()
    ch.total_jobs = _layout(out, chunk, ch.counts, ch.samples)
    return ch


def draw_batch(ThreadPool pool, BatchStorage out, uint64_t key, sample_ids, uint32_t stream,
               mode, a, b=None, end=None):
    """Fill every sample of `out` (its dtype one of float32/64, bool, 8-64-bit integers) with
    the `mode` draws (a key of MODES) of `key`, `sample_ids[i]` and `stream`, with per-sample
    parameters `a`, `b`, `end` (float64 arrays, or None for zeros)."""
    cdef Py_ssize_t n = out.num_samples, i, nj = 0, c
    if n == 0:
        return
    cdef const int64_t[::1] sid = np.ascontiguousarray(sample_ids, dtype=np.int64)
    cdef const double[::1] pa = np.ascontiguousarray(a, dtype=np.float64)
    cdef const double[::1] pb = pa if b is None else np.ascontiguousarray(b, dtype=np.float64)
    cdef const double[::1] pe = pa if end is None else np.ascontiguousarray(end, np.float64)
    if sid.shape[0] != n or pa.shape[0] != n or pb.shape[0] != n or pe.shape[0] != n:
        raise ValueError("draw_batch: one sample id and parameter per sample expected")
    cdef _Chunks ch = _chunks(out, CHUNK)
    cdef int64_t[::1] counts = ch.counts
    cdef int64_t chunk = ch.chunk
    cdef list samples = ch.samples
    cdef const int64_t[::1] offsets = ch.offsets
    cdef int64_t total_jobs = ch.total_jobs
    cdef Py_ssize_t itemsize = out.dtype.itemsize
    keep = []
    cdef _Ctx ctx
    ctx.batch.key = key
    ctx.batch.stream = stream
    ctx.batch.mode = MODES[mode]
    ctx.batch.dtype = _DTYPES[out.dtype]
    ctx.batch.lo, ctx.batch.hi = _CLAMP[out.dtype]
    ctx.jobs = <DaliDrawJob*>job_array(total_jobs, sizeof(DaliDrawJob), keep)
    cdef char* base
    cdef int64_t[::1] sizes = np.empty(max(total_jobs, 1), np.int64)
    for i in range(n):
        if counts[i] == 0:
            continue
        base = _sample_ptr(out, offsets, samples, i)
        for c in range((counts[i] + chunk - 1) // chunk):
            ctx.jobs[nj].out = base + c * chunk * itemsize
            ctx.jobs[nj].first = c * chunk
            ctx.jobs[nj].count = min(chunk, counts[i] - c * chunk)
            ctx.jobs[nj].sample_id = sid[i]
            ctx.jobs[nj].a = pa[i]
            ctx.jobs[nj].b = pb[i] if b is not None else 0.0
            ctx.jobs[nj].end = pe[i] if end is not None else 0.0
            sizes[nj] = ctx.jobs[nj].count
            nj += 1
    _run(pool, _run_item, &ctx, sizes, nj,
         _NS_NORMAL if ctx.batch.mode == DALI_DRAW_NORMAL else _NS_UNIFORM)


cdef double _BETA_NS_PER_ELEMENT = 60.0
BETA_CHUNK = 1 << 12


def beta_batch(ThreadPool pool, BatchStorage out, uint64_t key, sample_ids, alpha, beta):
    """Fill every sample of `out` (float32 or float64) with Beta(alpha[i], beta[i]) draws of
    `key` and `sample_ids[i]` (random_draws.h).  Returns the index of a sample whose gamma
    sampling did not converge, or -1."""
    cdef Py_ssize_t n = out.num_samples, i, nj = 0, c
    if n == 0:
        return -1
    if out.dtype not in (np.float32, np.float64):
        raise ValueError(f"beta_batch: float32 or float64 output expected, got {out.dtype}")
    cdef const int64_t[::1] sid = np.ascontiguousarray(sample_ids, dtype=np.int64)
    cdef const double[::1] pa = np.ascontiguousarray(alpha, dtype=np.float64)
    cdef const double[::1] pb = np.ascontiguousarray(beta, dtype=np.float64)
    if sid.shape[0] != n or pa.shape[0] != n or pb.shape[0] != n:
        raise ValueError("beta_batch: one sample id and parameter per sample expected")
    cdef _Chunks ch = _chunks(out, BETA_CHUNK)
    cdef int64_t[::1] counts = ch.counts
    cdef int64_t chunk = ch.chunk
    cdef list samples = ch.samples
    cdef const int64_t[::1] offsets = ch.offsets
    cdef int64_t total_jobs = ch.total_jobs
    cdef Py_ssize_t itemsize = out.dtype.itemsize
    keep = []
    cdef _Ctx ctx
    ctx.batch.key = key
    ctx.batch.dtype = itemsize == 8
    ctx.beta_jobs = <DaliBetaJob*>job_array(total_jobs, sizeof(DaliBetaJob), keep)
    cdef char* base
    cdef int64_t[::1] sizes = np.empty(max(total_jobs, 1), np.int64)
    cdef int64_t[::1] owner = np.empty(max(total_jobs, 1), np.int64)
    for i in range(n):
        if counts[i] == 0:
            continue
        base = _sample_ptr(out, offsets, samples, i)
        for c in range((counts[i] + chunk - 1) // chunk):
            ctx.beta_jobs[nj].out = base + c * chunk * itemsize
            ctx.beta_jobs[nj].first = c * chunk
            ctx.beta_jobs[nj].count = min(chunk, counts[i] - c * chunk)
            ctx.beta_jobs[nj].sample_id = sid[i]
            ctx.beta_jobs[nj].alpha = pa[i]
            ctx.beta_jobs[nj].beta = pb[i]
            sizes[nj] = ctx.beta_jobs[nj].count
            owner[nj] = i
            nj += 1
    _run(pool, _run_beta, &ctx, sizes, nj, _BETA_NS_PER_ELEMENT)
    for c in range(nj):
        if ctx.beta_jobs[c].failed:
            return owner[c]
    return -1
