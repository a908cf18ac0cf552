"""fn.transpose over a whole batch: every sample's dimensions permuted by one `perm`.

Each sample is described once (transpose.h collapses its dimensions) and cut into pieces of
about `PIECE` elements along its split range; the pieces run on the thread pool without the
GIL, largest first (a batch of one piece runs on the caller).  Samples may differ in shape.
Everything is checked before anything runs.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t

from dali._ext.kernels.transpose cimport (
    DALI_TR_MAX_DIMS,
    dali_tr_collapse,
    dali_tr_desc,
    dali_tr_run,
    dali_tr_split_extent,
)
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_ELEMENT = 0.5    # the cost estimate (per element) the pool gets

cdef enum:
    PIECE = 1 << 17                  # elements per work item, about


cdef struct Job:
    const dali_tr_desc* desc
    const char* src
    char* dst
    int64_t lo
    int64_t hi


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    dali_tr_run(j.desc, j.src, j.dst, j.lo, j.hi)


cdef const int64_t* _c_array(arr, list keep) except NULL:
    """The data of an int64 array (shapes, offsets), made C-contiguous where it is not."""
    cdef cnp.ndarray a = <cnp.ndarray>arr
    if not cnp.PyArray_IS_C_CONTIGUOUS(a):
        a = np.ascontiguousarray(a)
        keep.append(a)
    return <const int64_t*>cnp.PyArray_DATA(a)


def transpose_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, perm):
    """dst[i] = src[i].transpose(perm) for every sample i.

    `dst` must be contiguous storage of `src`'s type whose sample shapes are `src`'s permuted;
    `src` may be contiguous or per-sample.  Runs on `pool` (the caller when None).
    """
    cdef Py_ssize_t n = src.num_samples, i, k, count = 0
    cdef int d = src.ndim, j
    if dst.base is None:
        raise ValueError("transpose_batch writes into contiguous storage only")
    if dst.num_samples != n or dst.dtype != src.dtype or dst.ndim != d:
        raise ValueError("destination does not match the source in samples, type or ndim")
    if d >= DALI_TR_MAX_DIMS:
        raise ValueError(f"at most {DALI_TR_MAX_DIMS - 1} dimensions, not {d}")
    if sorted(perm) != list(range(d)):
        raise ValueError(f"{list(perm)} is not a permutation of {d} dimensions")
    keep = []
    cdef int* p = <int*>job_array(d, sizeof(int), keep)
    for j in range(d):
        p[j] = perm[j]
    cdef const int64_t* ss = _c_array(src.shapes, keep)
    cdef const int64_t* ds = _c_array(dst.shapes, keep)
    for i in range(n):
        for j in range(d):
            if ds[i * d + j] != ss[i * d + p[j]]:
                raise ValueError(f"sample {i}: the destination shape is not the source's "
                                 "permuted")
    if n == 0 or src.nbytes == 0:
        return
    cdef int64_t esize = src.dtype.itemsize, vol, extent, parts
    cdef dali_tr_desc* descs = <dali_tr_desc*>job_array(n, sizeof(dali_tr_desc), keep)
    cdef int64_t* nparts = <int64_t*>job_array(n, sizeof(int64_t), keep)
    cdef int64_t* vols = <int64_t*>job_array(n, sizeof(int64_t), keep)
    with nogil:
        for i in range(n):
            vol = dali_tr_collapse(d, ss + i * d, p, esize, descs + i)
            vols[i] = vol
            if vol == 0:
                continue
            extent = dali_tr_split_extent(descs + i)
            parts = min(max((vol * esize) // (PIECE * 4), 1), extent)
            nparts[i] = parts
            count += parts
    samples = None
    cdef const int64_t* soff = NULL
    cdef const int64_t* doff = _c_array(dst.offsets, keep)
    if src.base is None:
        samples = [np.ascontiguousarray(s) for s in src.samples()]
    else:
        soff = _c_array(src.offsets, keep)
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    cdef int64_t[::1] sizes = np.empty(count, np.int64)
    cdef const char* sp
    k = 0
    for i in range(n):
        if vols[i] == 0:
            continue
        if samples is None:
            sp = src.data + soff[i]
        else:
            sp = <const char*>cnp.PyArray_DATA(samples[i])
        extent = dali_tr_split_extent(descs + i)
        parts = nparts[i]
        for j in range(parts):
            jobs[k].desc = descs + i
            jobs[k].src = sp
            jobs[k].dst = dst.data + doff[i]
            jobs[k].lo = extent * j // parts
            jobs[k].hi = extent * (j + 1) // parts
            sizes[k] = vols[i] * (jobs[k].hi - jobs[k].lo) // extent
            k += 1
    if count == 1:
        with nogil:
            _run_job(jobs, 0)
    else:
        run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_ELEMENT)


def transpose_array(cnp.ndarray src, cnp.ndarray dst, perm):
    """dst[...] = src.transpose(perm) (C-contiguous arrays), on the caller."""
    if not (src.flags.c_contiguous and dst.flags.c_contiguous) or src.dtype != dst.dtype:
        raise ValueError("src and dst must be C-contiguous arrays of one type")
    if not dst.flags.writeable:
        raise ValueError("dst is read-only")
    cdef int d = src.ndim, j
    if d >= DALI_TR_MAX_DIMS or sorted(perm) != list(range(d)):
        raise ValueError(f"{list(perm)} is not a permutation of {d} dimensions")
    in_shape = (<object>src).shape
    if (<object>dst).shape != tuple(in_shape[q] for q in perm):
        raise ValueError("dst's shape is not src's permuted")
    cdef int p[DALI_TR_MAX_DIMS]
    cdef int64_t shape[DALI_TR_MAX_DIMS]
    for j in range(d):
        p[j] = perm[j]
        shape[j] = in_shape[j]
    cdef dali_tr_desc desc
    cdef int64_t vol = dali_tr_collapse(d, shape, p, src.itemsize, &desc)
    cdef const void* s = cnp.PyArray_DATA(src)
    cdef void* o = cnp.PyArray_DATA(dst)
    if vol:
        with nogil:
            dali_tr_run(&desc, s, o, 0, dali_tr_split_extent(&desc))
