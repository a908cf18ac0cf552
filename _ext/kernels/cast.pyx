"""fn.cast / fn.copy over a whole batch: each element converted with DALI's rules (cast.h).

Conversion is elementwise, so only the element counts matter: a batch whose samples lie back
to back (in the source and in the destination) is one flat range, any other batch one range
per sample.  Ranges are cut into pieces of at most `PIECE` elements, which run on the thread
pool without the GIL, largest first (a batch of one piece runs at once on the caller: tiny
batches pay no scheduling).  A conversion to the same type is a memcpy.  Everything is
checked before anything runs.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t
from libc.string cimport memcpy

from dali._ext.kernels.cast cimport (
    BOOL,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    dali_cast_fn,
    dali_cast_loop,
    dali_cast_simd,
)
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_ELEMENT = 0.5    # the cost estimate (per element) the pool gets

cdef enum:
    PIECE = 1 << 16                  # elements per work item at most

CODES = {np.dtype(t): c for t, c in (
    (np.bool_, BOOL), (np.int8, INT8), (np.uint8, UINT8), (np.int16, INT16),
    (np.uint16, UINT16), (np.int32, INT32), (np.uint32, UINT32), (np.int64, INT64),
    (np.uint64, UINT64), (np.float16, FLOAT16), (np.float32, FLOAT32),
    (np.float64, FLOAT64))}


cdef struct Job:
    const char* src
    char* dst
    int64_t n                        # elements (bytes for a copy)
    dali_cast_loop fn


cdef void _copy(const void* src, void* dst, int64_t n) noexcept nogil:
    memcpy(dst, src, n)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    j.fn(j.src, j.dst, j.n)


cdef dali_cast_loop _loop(src_dtype, dst_dtype) except? NULL:
    if src_dtype == dst_dtype:
        return _copy
    src_code, dst_code = CODES.get(src_dtype), CODES.get(dst_dtype)
    if src_code is None or dst_code is None:
        raise TypeError(f"cannot convert {src_dtype} to {dst_dtype}")
    return dali_cast_fn(dst_code, src_code)


cdef Py_ssize_t _pieces(Py_ssize_t n) noexcept nogil:
    return (n + PIECE - 1) // PIECE


cdef int _add(Job* jobs, Py_ssize_t k, const char* src, char* dst, int64_t n,
              dali_cast_loop fn, Py_ssize_t ssize, Py_ssize_t dsize, int64_t* sizes) noexcept nogil:
    """Jobs k.. for one range of `n` elements; returns how many were added."""
    cdef int64_t start = 0, m
    cdef int added = 0
    while start < n:
        m = min(<int64_t>PIECE, n - start)
        jobs[k + added].src = src + start * ssize
        jobs[k + added].dst = dst + start * dsize
        jobs[k + added].n = m * ssize if fn == _copy else m
        jobs[k + added].fn = fn
        sizes[k + added] = m
        start += m
        added += 1
    return added


cdef const int64_t* _c_array(arr, list keep) except NULL:
    """The data of an int64 array (shapes, offsets), made C-contiguous where it is not."""
    cdef cnp.ndarray a = <cnp.ndarray>arr
    if not cnp.PyArray_IS_C_CONTIGUOUS(a):
        a = np.ascontiguousarray(a)
        keep.append(a)
    return <const int64_t*>cnp.PyArray_DATA(a)


cdef int64_t _volumes(BatchStorage s, int64_t* out, list keep) except -1:
    """Element counts of `s`'s samples into `out`; returns their sum."""
    cdef const int64_t* sp = _c_array(s.shapes, keep)
    cdef Py_ssize_t i, j, d = s.ndim
    cdef int64_t v, total = 0
    for i in range(s.num_samples):
        v = 1
        for j in range(d):
            v *= sp[i * d + j]
        out[i] = v
        total += v
    return total


cdef bint _back_to_back(const int64_t* off, const int64_t* vols, Py_ssize_t n,
                        Py_ssize_t itemsize) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(1, n):
        if off[i] != off[i - 1] + vols[i - 1] * itemsize:
            return False
    return True


def cast_batch(ThreadPool pool, BatchStorage src, BatchStorage dst):
    """Convert every sample of `src` into the sample of `dst` with the same index.

    `dst` must be contiguous storage whose samples have the element counts of `src`'s (any
    shapes); `src` may be contiguous or per-sample.  Runs on `pool` (the caller when None).
    Small batches matter: no NumPy call runs unless the work is cut into several pieces.
    """
    cdef Py_ssize_t n = src.num_samples, i, k = 0, count = 0
    cdef Py_ssize_t ssize = src.dtype.itemsize, dsize = dst.dtype.itemsize
    cdef dali_cast_loop fn = _loop(src.dtype, dst.dtype)
    if dst.base is None:
        raise ValueError("cast_batch writes into contiguous storage only")
    if dst.num_samples != n:
        raise ValueError(f"{n} source samples but {dst.num_samples} destination samples")
    keep = []
    cdef int64_t* vols = <int64_t*>job_array(2 * n, sizeof(int64_t), keep)
    cdef int64_t total = _volumes(src, vols, keep)
    _volumes(dst, vols + n, keep)
    for i in range(n):
        if vols[i] != vols[n + i]:
            raise ValueError("source and destination samples differ in element counts")
    if total == 0:
        return
    samples = None
    cdef const int64_t* soff = NULL
    cdef const int64_t* doff = _c_array(dst.offsets, keep)
    if src.base is None:
        samples = [np.ascontiguousarray(s) for s in src.samples()]
    else:
        soff = _c_array(src.offsets, keep)
    cdef bint flat = soff != NULL and _back_to_back(soff, vols, n, ssize) and \
        _back_to_back(doff, vols, n, dsize)
    if flat:
        count = _pieces(total)
    else:
        for i in range(n):
            count += _pieces(vols[i])
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    cdef int64_t* sz = <int64_t*>job_array(count, sizeof(int64_t), keep)
    cdef const char* sp
    if flat:
        _add(jobs, 0, src.data + soff[0], dst.data + doff[0], total, fn, ssize, dsize, sz)
    else:
        for i in range(n):
            if samples is None:
                sp = src.data + soff[i]
            else:
                sp = <const char*>cnp.PyArray_DATA(samples[i])
            k += _add(jobs, k, sp, dst.data + doff[i], vols[i], fn, ssize, dsize, sz)
    if count == 1:
        with nogil:
            _run_job(jobs, 0)
    else:
        run_largest_first(pool, _run_job, jobs, <int64_t[:count]>sz, _NS_PER_ELEMENT)


def cast_array(cnp.ndarray src, cnp.ndarray dst):
    """dst[...] = src converted to dst's type (C-contiguous arrays of the same size)."""
    if not (src.flags.c_contiguous and dst.flags.c_contiguous) or src.size != dst.size:
        raise ValueError("src and dst must be C-contiguous arrays of the same size")
    if not dst.flags.writeable:
        raise ValueError("dst is read-only")
    cdef dali_cast_loop fn = _loop(src.dtype, dst.dtype)
    cdef const void* s = cnp.PyArray_DATA(src)
    cdef void* d = cnp.PyArray_DATA(dst)
    cdef int64_t m = src.nbytes if fn == _copy else src.size
    with nogil:
        fn(s, d, m)


def simd(level=None):
    """The vector level of the float -> integer loops: 0 scalar, 1 SSE4.1, 2 AVX2 (at import:
    the best the build and the CPU have).  `level` sets it (capped the same way), so tests can
    compare every path; all give the same results."""
    return dali_cast_simd(-1 if level is None else int(level))
