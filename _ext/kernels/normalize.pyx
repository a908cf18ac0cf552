"""The passes of fn.normalize over one sample (or a slab of its outermost dimension).

The caller collapses the sample to a C-contiguous array whose dimensions are either reduced
or kept, and describes the parameters (one value per combination of kept indices, C order) by
element strides `pstrides`: 0 along reduced dimensions.  Three passes share that layout:

* `accumulate(src, sums, pstrides)`: sums[p] += x;
* `accumulate(src, sums, pstrides, mean)`: sums[p] += (x - mean[p])**2;
* `normalize(src, dst, pstrides, mean, inv, shift)`: dst = (x - mean[p]) * inv[p] + shift, in
  float32 as DALI computes it, converted to dst's type (integers round half away from zero and
  saturate, see convert.pxd).

Sums are accumulated in double (DALI accumulates in float; the difference stays far below
float32 resolution of the final mean).  Everything runs without the GIL; `accumulate_batch`
and `normalize_batch` run a list of such calls (slabs of a batch's samples) on a thread pool in
one go, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t

from dali._ext.kernels.convert cimport store
from dali._ext.kernels.odometer cimport next_index
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_ELEMENT = 1.0    # the cost estimate (per element) the pool gets

ctypedef fused num_in:
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    float

ctypedef fused num_out:
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    float

cdef enum:
    MAX_DIMS = 16


cdef inline Py_ssize_t _rows(Py_ssize_t* idx, int ndim, const Py_ssize_t* shape) noexcept nogil:
    """Zero the odometer `idx` over the outer dimensions; return how many rows (runs of the
    innermost dimension) it visits."""
    cdef Py_ssize_t n_outer = 1
    cdef int d
    for d in range(ndim - 1):
        n_outer *= shape[d]
        idx[d] = 0
    return n_outer


cdef inline Py_ssize_t _param(const Py_ssize_t* idx, int ndim,
                              const Py_ssize_t* pstr) noexcept nogil:
    """Parameter index of the first element of the row at `idx`."""
    cdef Py_ssize_t p = 0
    cdef int d
    for d in range(ndim - 1):
        p += idx[d] * pstr[d]
    return p


cdef void _accumulate(const num_in* s, double* acc, int ndim, const Py_ssize_t* shape,
                      const Py_ssize_t* pstr, const float* mean) noexcept nogil:
    """Row by row; a row sums into one parameter (innermost dimension reduced) or into
    consecutive ones (kept)."""
    cdef Py_ssize_t idx[MAX_DIMS]
    cdef Py_ssize_t k, j, p, n = shape[ndim - 1], ps = pstr[ndim - 1]
    cdef double t, v
    for k in range(_rows(idx, ndim, shape)):
        p = _param(idx, ndim, pstr)
        if ps == 0:
            t = 0
            if mean == NULL:
                for j in range(n):
                    t += s[j]
            else:
                for j in range(n):
                    v = <double>s[j] - mean[p]
                    t += v * v
            acc[p] += t
        elif mean == NULL:
            for j in range(n):
                acc[p + j] += s[j]
        else:
            for j in range(n):
                v = <double>s[j] - mean[p + j]
                acc[p + j] += v * v
        s += n
        next_index(idx, ndim - 1, shape)


cdef void _normalize(const num_in* s, num_out* o, int ndim, const Py_ssize_t* shape,
                     const Py_ssize_t* pstr, const float* mean, const float* inv,
                     float shift) noexcept nogil:
    cdef Py_ssize_t idx[MAX_DIMS]
    cdef Py_ssize_t k, j, p, n = shape[ndim - 1], ps = pstr[ndim - 1]
    cdef float m, f
    for k in range(_rows(idx, ndim, shape)):
        p = _param(idx, ndim, pstr)
        if ps == 0:
            m = mean[p]
            f = inv[p]
            for j in range(n):
                store(&o[j], (<float>s[j] - m) * f + shift)
        else:
            for j in range(n):
                store(&o[j], (<float>s[j] - mean[p + j]) * inv[p + j] + shift)
        s += n
        o += n
        next_index(idx, ndim - 1, shape)


cdef void _accumulate_any(const char* s, int sk, double* acc, int ndim,
                          const Py_ssize_t* shape, const Py_ssize_t* pstr,
                          const float* mean) noexcept nogil:
    if sk == cnp.NPY_INT8:
        _accumulate(<const int8_t*>s, acc, ndim, shape, pstr, mean)
    elif sk == cnp.NPY_UINT8:
        _accumulate(<const uint8_t*>s, acc, ndim, shape, pstr, mean)
    elif sk == cnp.NPY_INT16:
        _accumulate(<const int16_t*>s, acc, ndim, shape, pstr, mean)
    elif sk == cnp.NPY_UINT16:
        _accumulate(<const uint16_t*>s, acc, ndim, shape, pstr, mean)
    elif sk == cnp.NPY_INT32:
        _accumulate(<const int32_t*>s, acc, ndim, shape, pstr, mean)
    elif sk == cnp.NPY_UINT32:
        _accumulate(<const uint32_t*>s, acc, ndim, shape, pstr, mean)
    else:
        _accumulate(<const float*>s, acc, ndim, shape, pstr, mean)


cdef void _normalize_out(const num_in* s, char* o, int dk, int ndim, const Py_ssize_t* shape,
                         const Py_ssize_t* pstr, const float* mean, const float* inv,
                         float shift) noexcept nogil:
    if dk == cnp.NPY_INT8:
        _normalize(s, <int8_t*>o, ndim, shape, pstr, mean, inv, shift)
    elif dk == cnp.NPY_UINT8:
        _normalize(s, <uint8_t*>o, ndim, shape, pstr, mean, inv, shift)
    elif dk == cnp.NPY_INT16:
        _normalize(s, <int16_t*>o, ndim, shape, pstr, mean, inv, shift)
    elif dk == cnp.NPY_UINT16:
        _normalize(s, <uint16_t*>o, ndim, shape, pstr, mean, inv, shift)
    elif dk == cnp.NPY_INT32:
        _normalize(s, <int32_t*>o, ndim, shape, pstr, mean, inv, shift)
    elif dk == cnp.NPY_UINT32:
        _normalize(s, <uint32_t*>o, ndim, shape, pstr, mean, inv, shift)
    else:
        _normalize(s, <float*>o, ndim, shape, pstr, mean, inv, shift)


cdef void _normalize_any(const char* s, int sk, char* o, int dk, int ndim,
                         const Py_ssize_t* shape, const Py_ssize_t* pstr, const float* mean,
                         const float* inv, float shift) noexcept nogil:
    if sk == cnp.NPY_INT8:
        _normalize_out(<const int8_t*>s, o, dk, ndim, shape, pstr, mean, inv, shift)
    elif sk == cnp.NPY_UINT8:
        _normalize_out(<const uint8_t*>s, o, dk, ndim, shape, pstr, mean, inv, shift)
    elif sk == cnp.NPY_INT16:
        _normalize_out(<const int16_t*>s, o, dk, ndim, shape, pstr, mean, inv, shift)
    elif sk == cnp.NPY_UINT16:
        _normalize_out(<const uint16_t*>s, o, dk, ndim, shape, pstr, mean, inv, shift)
    elif sk == cnp.NPY_INT32:
        _normalize_out(<const int32_t*>s, o, dk, ndim, shape, pstr, mean, inv, shift)
    elif sk == cnp.NPY_UINT32:
        _normalize_out(<const uint32_t*>s, o, dk, ndim, shape, pstr, mean, inv, shift)
    else:
        _normalize_out(<const float*>s, o, dk, ndim, shape, pstr, mean, inv, shift)


TYPES = frozenset(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                        np.uint32, np.float32))


cdef int _layout(cnp.ndarray src, pstrides, Py_ssize_t nparams, Py_ssize_t* shape,
                 Py_ssize_t* pstr) except -1:
    """Check src and the parameter strides; fill shape/pstr; return ndim."""
    cdef int ndim = src.ndim, d
    cdef Py_ssize_t last = 0
    if src.dtype not in TYPES:
        raise TypeError(f"unsupported type {src.dtype}")
    if not src.flags.c_contiguous:
        raise ValueError("src must be C-contiguous")
    if not 1 <= ndim <= MAX_DIMS or len(pstrides) != ndim:
        raise ValueError(f"src needs 1 to {MAX_DIMS} dimensions and one parameter stride each")
    for d in range(ndim):
        shape[d] = src.shape[d]
        pstr[d] = pstrides[d]
        if pstr[d] < 0:
            raise ValueError("parameter strides must not be negative")
        if shape[d] > 0:
            last += (shape[d] - 1) * pstr[d]
    if src.size and last >= nparams:
        raise ValueError(f"the parameter strides reach index {last}, past {nparams} values")
    return ndim


cdef struct Job:
    # one `accumulate` (dst NULL) or `normalize` call
    const char* src
    char* dst
    int sk, dk, ndim
    Py_ssize_t size
    Py_ssize_t shape[MAX_DIMS]
    Py_ssize_t pstr[MAX_DIMS]
    double* sums
    const float* mean
    const float* inv
    float shift


cdef object _accumulate_job(cnp.ndarray src, double[::1] sums, pstrides, mean, Job* job):
    """Check `accumulate`'s arguments and fill `job`; returns what must stay alive."""
    cdef const float[::1] m = None
    job.ndim = _layout(src, pstrides, sums.shape[0], job.shape, job.pstr)
    job.mean = NULL
    if mean is not None:
        m = np.ascontiguousarray(mean, dtype=np.float32)
        if m.shape[0] < sums.shape[0]:
            raise ValueError("mean needs as many values as sums")
        job.mean = &m[0] if m.shape[0] else NULL
    job.size = src.size
    job.src = <const char*>cnp.PyArray_DATA(src)
    job.sk = cnp.PyArray_TYPE(src)
    job.dst = NULL
    job.sums = &sums[0] if sums.shape[0] else NULL
    return src, sums, m


cdef object _normalize_job(cnp.ndarray src, cnp.ndarray dst, pstrides, mean, inv, float shift,
                           Job* job):
    """Check `normalize`'s arguments and fill `job`; returns what must stay alive."""
    cdef const float[::1] m = np.ascontiguousarray(mean, dtype=np.float32)
    cdef const float[::1] f = np.ascontiguousarray(inv, dtype=np.float32)
    if m.shape[0] != f.shape[0]:
        raise ValueError("mean and inv must have the same size")
    job.ndim = _layout(src, pstrides, m.shape[0], job.shape, job.pstr)
    if dst.dtype not in TYPES or not dst.flags.c_contiguous:
        raise TypeError(f"dst must be a C-contiguous array of a supported type, got {dst.dtype}")
    if dst.size != src.size:
        raise ValueError("src and dst must have the same size")
    job.size = src.size
    job.src = <const char*>cnp.PyArray_DATA(src)
    job.dst = <char*>cnp.PyArray_DATA(dst)
    job.sk, job.dk = cnp.PyArray_TYPE(src), cnp.PyArray_TYPE(dst)
    job.mean = &m[0] if m.shape[0] else NULL
    job.inv = &f[0] if f.shape[0] else NULL
    job.shift = shift
    return src, dst, m, f


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    if j.size == 0:
        return
    if j.dst == NULL:
        _accumulate_any(j.src, j.sk, j.sums, j.ndim, j.shape, j.pstr, j.mean)
    else:
        _normalize_any(j.src, j.sk, j.dst, j.dk, j.ndim, j.shape, j.pstr, j.mean, j.inv,
                       j.shift)


cdef _batch(ThreadPool pool, list jobs, bint normalizing):
    cdef Py_ssize_t n = len(jobs), i
    keep = []
    cdef Job* cjobs = <Job*>job_array(n, sizeof(Job), keep)
    for i in range(n):
        if normalizing:
            src, dst, pstrides, mean, inv, shift = jobs[i]
            keep.append(_normalize_job(src, dst, pstrides, mean, inv, shift, &cjobs[i]))
        else:
            src, sums, pstrides, mean = jobs[i]
            keep.append(_accumulate_job(src, sums, pstrides, mean, &cjobs[i]))
    run_largest_first(pool, _run_job, cjobs, [cjobs[i].size for i in range(n)],
                      _NS_PER_ELEMENT)


def accumulate(cnp.ndarray src, double[::1] sums, pstrides, mean=None):
    """sums[p] += x (or (x - mean[p])**2 when `mean` is given) for every element x of `src`
    whose parameter index is p (see the module docstring)."""
    accumulate_batch(None, [(src, sums, pstrides, mean)])


def accumulate_batch(ThreadPool pool, list jobs):
    """`accumulate(src, sums, pstrides, mean)` for every (src, sums, pstrides, mean) of `jobs`,
    on `pool` (the caller when None, or when the batch is too cheap to wake a thread) without
    the GIL, largest first; jobs that run at once must not share sums.  Every job is checked
    before any runs."""
    _batch(pool, jobs, False)


def normalize(cnp.ndarray src, cnp.ndarray dst, pstrides, mean, inv, float shift):
    """dst = (src - mean[p]) * inv[p] + shift, converted to dst's type."""
    normalize_batch(None, [(src, dst, pstrides, mean, inv, shift)])


def normalize_batch(ThreadPool pool, list jobs):
    """`normalize(src, dst, pstrides, mean, inv, shift)` for every tuple of `jobs`, as
    `accumulate_batch` runs its jobs."""
    _batch(pool, jobs, True)
