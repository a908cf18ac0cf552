# cython: boundscheck=False, wraparound=False, cdivision=True
"""Noise of fn.noise.* added to a batch in one nogil call (noise.h states what is drawn and how
it is applied).  Each sample is cut into jobs of `CHUNK` pixels (an even number, so a job starts
on a Philox block) that run on the pool largest first: the values depend on the key, the sample
ids and the elements only, not on the number of threads.  The source samples are read where
they are (`sample_data`), contiguous or not.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint64_t

from dali._ext.kernels import random as _random
from dali._ext.kernels.batch_shapes cimport volume
from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef extern from "philox_blocks.h" nogil:
    void dali_philox_detect()

cdef extern from "noise.h" nogil:
    enum:
        DALI_NOISE_GAUSSIAN
        DALI_NOISE_SALT
        DALI_NOISE_SHOT
    enum:
        DALI_DT_F32, DALI_DT_U8, DALI_DT_U16, DALI_DT_U32, DALI_DT_U64, DALI_DT_I8,
        DALI_DT_I16, DALI_DT_I32, DALI_DT_I64
    ctypedef struct DaliNoiseJob:
        const char* src
        char* dst
        int64_t first, count
        int64_t nc, inner
        int64_t sample_id
        double a, b, c, d
    ctypedef struct DaliNoiseBatch:
        uint64_t key
        int mode, dtype
        double lo, hi
        int64_t itemsize
    void dali_noise_run(const DaliNoiseBatch* bt, const DaliNoiseJob* j)

dali_philox_detect()

CHUNK = 1 << 15
MODES = {"gaussian": DALI_NOISE_GAUSSIAN, "salt_and_pepper": DALI_NOISE_SALT,
         "shot": DALI_NOISE_SHOT}
# cost estimates (ns per pixel) the pool gets
_NS = {DALI_NOISE_GAUSSIAN: 12.0, DALI_NOISE_SALT: 4.0, DALI_NOISE_SHOT: 40.0}
_DTYPES = {np.dtype(np.float32): DALI_DT_F32, np.dtype(np.uint8): DALI_DT_U8,
           np.dtype(np.uint16): DALI_DT_U16, np.dtype(np.uint32): DALI_DT_U32,
           np.dtype(np.uint64): DALI_DT_U64, np.dtype(np.int8): DALI_DT_I8,
           np.dtype(np.int16): DALI_DT_I16, np.dtype(np.int32): DALI_DT_I32,
           np.dtype(np.int64): DALI_DT_I64}


_CLAMP = {t: _random._clamp_range(t) for t in _DTYPES}    # fn.random's integer ranges

ctypedef struct _Ctx:
    DaliNoiseBatch batch
    DaliNoiseJob* jobs


cdef void _run_item(void* ctx, int64_t item) noexcept nogil:
    cdef _Ctx* c = <_Ctx*>ctx
    dali_noise_run(&c.batch, &c.jobs[item])


def types():
    """The element types the kernel takes (input and output alike)."""
    return tuple(_DTYPES)


def noise_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, uint64_t key, sample_ids,
                str mode, params, groups=None):
    """dst = src with `mode` noise (a key of MODES), drawn with `key` and `sample_ids`.

    Parameters
    ----------
    src, dst : BatchStorage
        Batches of the same type (one of `types()`) and shapes; `dst` contiguous.
    params : float64 (samples, 4)
        Per sample: mean, stddev (gaussian); prob, salt_vs_pepper, salt, pepper (salt and
        pepper; the last two already values of the type); factor (shot).
    groups : int64 (samples, 2) or None
        Per sample: the channels nc sharing one draw and the stride `inner` between them (see
        noise.h); None: every element on its own.
    """
    cdef Py_ssize_t n = src.num_samples, i, k, d, nj = 0
    if dst.num_samples != n or src.dtype != dst.dtype:
        raise ValueError("source and destination must have as many samples and one type")
    if src.dtype not in _DTYPES:
        raise TypeError(f"unsupported type {src.dtype}")
    if not dst.is_contiguous:
        raise ValueError("noise_batch needs a contiguous destination")
    if mode not in MODES:
        raise ValueError(f"unknown noise {mode!r}")
    cdef const int64_t[::1] sid = np.ascontiguousarray(sample_ids, np.int64)
    cdef const double[:, ::1] par = np.ascontiguousarray(params, np.float64)
    gr = np.ones((n, 2), np.int64) if groups is None else np.ascontiguousarray(groups, np.int64)
    cdef const int64_t[:, ::1] g = gr
    if sid.shape[0] != n or par.shape[0] != n or par.shape[1] != 4 or g.shape[0] != n or (
            g.shape[1] != 2):
        raise ValueError("one sample id, row of 4 parameters and group per sample expected")
    cdef const int64_t[:, ::1] src_shapes = src.shapes
    cdef const int64_t[:, ::1] dst_shapes = dst.shapes
    if src.ndim != dst.ndim:
        raise ValueError("source and destination must have the same shapes")
    for i in range(n):
        for d in range(src.ndim):
            if src_shapes[i, d] != dst_shapes[i, d]:
                raise ValueError("source and destination must have the same shapes")
    cdef int64_t pixels, chunk = CHUNK, total = 0, size
    for i in range(n):
        size = volume(src_shapes, i)
        if g[i, 0] < 1 or g[i, 1] < 1 or size % (g[i, 0] * g[i, 1]):
            raise ValueError("every sample's size must be a multiple of nc * inner")
        total += (size // g[i, 0] + chunk - 1) // chunk
    if total == 0:
        return
    keep = []
    cdef const char** src_data = sample_data(src, keep)
    cdef _Ctx ctx
    ctx.batch.key = key
    ctx.batch.mode = MODES[mode]
    ctx.batch.dtype = _DTYPES[src.dtype]
    ctx.batch.lo, ctx.batch.hi = _CLAMP[src.dtype]
    ctx.batch.itemsize = src.dtype.itemsize
    ctx.jobs = <DaliNoiseJob*>job_array(total, sizeof(DaliNoiseJob), keep)
    cdef const int64_t[::1] dst_off = dst.offsets
    costs = np.empty(total, np.int64)
    cdef int64_t[::1] cost = costs
    with nogil:
        for i in range(n):
            pixels = volume(src_shapes, i) // g[i, 0]
            for k in range((pixels + chunk - 1) // chunk):
                ctx.jobs[nj].src = src_data[i]
                ctx.jobs[nj].dst = dst.data + dst_off[i]
                ctx.jobs[nj].first = k * chunk
                ctx.jobs[nj].count = min(chunk, pixels - k * chunk)
                ctx.jobs[nj].nc, ctx.jobs[nj].inner = g[i, 0], g[i, 1]
                ctx.jobs[nj].sample_id = sid[i]
                ctx.jobs[nj].a, ctx.jobs[nj].b = par[i, 0], par[i, 1]
                ctx.jobs[nj].c, ctx.jobs[nj].d = par[i, 2], par[i, 3]
                cost[nj] = ctx.jobs[nj].count * g[i, 0]
                nj += 1
    run_largest_first(pool, _run_item, &ctx, costs, _NS[ctx.batch.mode])
