# cython: boundscheck=False, wraparound=False, cdivision=True
"""Fills every sample of a batch with a repeated byte pattern: the kernel of fn.zeros, ones,
full and their *_like forms.

Sample i of `dst` becomes the pattern (sample i of `src`, or its only sample) repeated as many
times as fit; the sample's size must be a multiple of the pattern's.  A one-byte pattern, and
a pattern of zeros, is a memset; a longer one is written once per work item and then doubled
with memcpy.  A sample is cut into work items of whole repeats of about `_TILE_BYTES`; all items
run in one nogil call on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t
from libc.string cimport memcpy, memset

from dali._ext.kernels.batch_shapes cimport sample_bytes
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef int64_t _TILE_BYTES = 256 * 1024   # work items of at least this size (or whole samples)
cdef double _NS_PER_BYTE = 0.05         # the cost estimate the pool gets


cdef struct Job:
    char* dst               # the item's first byte
    const char* pattern
    int64_t length          # pattern bytes
    int64_t repeats
    bint zero               # the pattern is all zero bytes


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    cdef int64_t total = j.length * j.repeats, done, step
    if total == 0:
        return
    if j.zero or j.length == 1:
        memset(j.dst, j.pattern[0] if not j.zero else 0, total)
        return
    memcpy(j.dst, j.pattern, j.length)
    done = j.length
    while done < total:
        step = min(done, total - done)
        memcpy(j.dst + done, j.dst, step)
        done += step


cdef bint _all_zero(const char* p, int64_t n) noexcept nogil:
    cdef int64_t k
    for k in range(n):
        if p[k] != 0:
            return False
    return True


cdef int64_t[::1] _bytes(BatchStorage b):
    """The size in bytes of every sample."""
    cdef int64_t[::1] out = np.empty(b.num_samples, np.int64)
    sample_bytes(np.ascontiguousarray(b.shapes, np.int64), b.dtype.itemsize, out)
    return out


def fill_batch(ThreadPool pool, BatchStorage src, BatchStorage dst):
    """Fill every sample of `dst` with its pattern repeated.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src : BatchStorage
        Contiguous patterns: one sample per destination sample, or one for all; same element
        type as `dst`.
    dst : BatchStorage
        Contiguous; each sample's size is a multiple of its pattern's (an empty pattern only
        for an empty sample).
    """
    cdef Py_ssize_t n = dst.num_samples, i, t, c, count = 0
    if not (src.is_contiguous and dst.is_contiguous):
        raise ValueError("fill_batch needs contiguous storage")
    if src.num_samples not in (1, n) and n:
        raise ValueError(f"{src.num_samples} patterns for {n} samples")
    if src.dtype != dst.dtype:
        raise ValueError(f"the patterns are {src.dtype}, the destination {dst.dtype}")
    cdef int64_t[::1] plen = _bytes(src)
    cdef int64_t[::1] dlen = _bytes(dst)
    if src.num_samples == 1:
        plen = np.full(n, plen[0], np.int64)
    for i in range(n):
        if (dlen[i] % plen[i] if plen[i] else dlen[i]) != 0:
            raise ValueError(f"sample {i}: {dlen[i]} bytes are not a multiple of the pattern's "
                             f"{plen[i]}")
    if n == 0:
        return
    keep = []
    cdef const int64_t[::1] soff = np.ascontiguousarray(src.offsets, np.int64)
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets, np.int64)
    cdef bint shared = src.num_samples == 1
    cdef int64_t* tiles = <int64_t*>job_array(n, sizeof(int64_t), keep)
    cdef int64_t reps
    with nogil:
        for i in range(n):
            t = 1
            if plen[i] and dlen[i] > _TILE_BYTES:
                t = min(dlen[i] // plen[i], dlen[i] // _TILE_BYTES)
            tiles[i] = t
            count += t
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    sizes = np.empty(count, dtype=np.int64)
    cdef int64_t[::1] size_view = sizes
    cdef const char* pat
    cdef bint zero
    c = 0
    with nogil:
        for i in range(n):
            pat = src.data + soff[0 if shared else i]
            zero = _all_zero(pat, plen[i])
            reps = dlen[i] // plen[i] if plen[i] else 0
            for t in range(tiles[i]):
                jobs[c].pattern = pat
                jobs[c].length = plen[i]
                jobs[c].zero = zero
                jobs[c].repeats = reps * (t + 1) // tiles[i] - reps * t // tiles[i]
                jobs[c].dst = dst.data + doff[i] + reps * t // tiles[i] * plen[i]
                size_view[c] = jobs[c].repeats * plen[i]
                c += 1
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_BYTE)
