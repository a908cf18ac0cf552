# cython: boundscheck=False, wraparound=False, cdivision=True
"""Joins the samples of several batches into one: the kernel of fn.cat and fn.stack.

Seen as bytes, sample i of input k is `outer[i]` rows of `inner[i, k]` bytes (the axes before
the join axis make the rows, the join axis and the ones after it the row), and output sample i
is `outer[i]` rows of `sum_k inner[i, k]` bytes: row r of the output is row r of every input,
one after the other.  Stacking is the same with a new axis of extent 1 in every input.  Only
bytes move, so any element type works.  A sample is cut into work items of whole rows of about
`_TILE_BYTES`; all items run in one nogil call on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

from dali._ext.kernels.batch_shapes cimport volume
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef int64_t _TILE_BYTES = 256 * 1024   # work items of at least this size (or whole samples)
cdef double _NS_PER_BYTE = 0.1          # the cost estimate the pool gets


ctypedef fused word_t:
    uint8_t
    uint16_t
    uint32_t
    uint64_t


cdef struct Job:
    char* dst
    const char** src        # k row starts (row 0) of this sample's inputs
    const int64_t* inner    # k row sizes in bytes
    int k
    int word                # 1, 2, 4 or 8: every input's row is one element of this size;
    #                         0: rows copied with memcpy
    int64_t row             # output row size in bytes
    int64_t lo, hi          # rows [lo, hi)


cdef void _interleave(word_t* out, const word_t** src, int k, int64_t lo,
                      int64_t hi) noexcept nogil:
    """Rows of one element each (stacking along the innermost axis): out[r * k + q] =
    src[q][r] for r in [lo, hi)."""
    cdef int64_t r
    cdef int q
    cdef const word_t* a = src[0]
    cdef const word_t* b = src[1]
    if k == 2:
        for r in range(lo, hi):
            out[2 * r] = a[r]
            out[2 * r + 1] = b[r]
        return
    for r in range(lo, hi):
        for q in range(k):
            out[r * k + q] = src[q][r]


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    cdef int64_t r, w
    cdef int q
    cdef char* out = j.dst + j.lo * j.row
    if j.lo == j.hi:
        return
    if j.k == 1:
        memcpy(out, j.src[0] + j.lo * j.row, (j.hi - j.lo) * j.row)
    elif j.word == 1:
        _interleave(<uint8_t*>j.dst, <const uint8_t**>j.src, j.k, j.lo, j.hi)
    elif j.word == 2:
        _interleave(<uint16_t*>j.dst, <const uint16_t**>j.src, j.k, j.lo, j.hi)
    elif j.word == 4:
        _interleave(<uint32_t*>j.dst, <const uint32_t**>j.src, j.k, j.lo, j.hi)
    elif j.word == 8:
        _interleave(<uint64_t*>j.dst, <const uint64_t**>j.src, j.k, j.lo, j.hi)
    else:
        for r in range(j.lo, j.hi):
            for q in range(j.k):
                w = j.inner[q]
                memcpy(out, j.src[q] + r * w, w)
                out += w


def join_batch(ThreadPool pool, list srcs, BatchStorage dst, outer, inner):
    """Write into every sample of `dst` the rows of every source's sample, interleaved.

    Rows of one element of 1, 2, 4 or 8 bytes in every input (stacking along the innermost
    axis) are interleaved element by element; other rows are copied with memcpy.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    srcs : list of BatchStorage
        The inputs (k of them), contiguous, with `dst`'s element size and number of samples.
    dst : BatchStorage
        Contiguous; sample i holds outer[i] * sum(inner[i]) bytes.
    outer : int64 array (num_samples,)
        Rows per sample.
    inner : int64 array (num_samples, k)
        Bytes per row of each input's sample; sample i of input q holds outer[i] * inner[i, q]
        bytes.
    """
    cdef Py_ssize_t n = dst.num_samples, i, q, t, c, count = 0
    cdef int k = len(srcs)
    cdef BatchStorage s
    if not dst.is_contiguous:
        raise ValueError("join_batch writes into contiguous storage only")
    cdef const int64_t[::1] rows = np.ascontiguousarray(outer, dtype=np.int64)
    cdef const int64_t[:, ::1] widths = np.ascontiguousarray(inner, dtype=np.int64)
    if rows.shape[0] != n or widths.shape[0] != n or widths.shape[1] != k:
        raise ValueError(f"outer must have shape ({n},) and inner ({n}, {k})")
    cdef int64_t itemsize = dst.dtype.itemsize, total
    cdef const int64_t[:, ::1] shapes
    for q in range(k):
        s = srcs[q]
        if not s.is_contiguous or s.num_samples != n or s.dtype.itemsize != itemsize:
            raise ValueError(f"source {q} is not contiguous or differs from the destination in "
                             "samples or element size")
        shapes = np.ascontiguousarray(s.shapes, np.int64)
        for i in range(n):
            if volume(shapes, i) * itemsize != rows[i] * widths[i, q]:
                raise ValueError(f"source {q}: the sample sizes do not match outer * inner")
    shapes = np.ascontiguousarray(dst.shapes, np.int64)
    for i in range(n):
        total = 0
        for q in range(k):
            total += widths[i, q]
        if volume(shapes, i) * itemsize != rows[i] * total:
            raise ValueError("the destination's sample sizes do not match the sources'")
    if n == 0 or k == 0:
        return
    keep = []
    cdef const char** ptrs = <const char**>job_array(n * k, sizeof(char*), keep)
    cdef const int64_t* soff
    for q in range(k):
        s = srcs[q]
        offsets = np.ascontiguousarray(s.offsets, np.int64)
        keep.append(offsets)
        soff = <const int64_t*>cnp.PyArray_DATA(offsets)
        for i in range(n):
            ptrs[i * k + q] = s.data + soff[i]
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets, np.int64)
    cdef int64_t* tiles = <int64_t*>job_array(n, sizeof(int64_t), keep)
    cdef int64_t* row = <int64_t*>job_array(n, sizeof(int64_t), keep)
    cdef int* word = <int*>job_array(n, sizeof(int), keep)
    with nogil:
        for i in range(n):
            row[i] = 0
            word[i] = widths[i, 0]
            for q in range(k):
                row[i] += widths[i, q]
                if widths[i, q] != word[i]:
                    word[i] = 0
            if word[i] not in (1, 2, 4, 8):
                word[i] = 0
            t = 1
            if rows[i] > 1:
                t = min(rows[i], max(1, rows[i] * row[i] // _TILE_BYTES))
            tiles[i] = t
            count += t
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    sizes = np.empty(count, dtype=np.int64)
    cdef int64_t[::1] size_view = sizes
    c = 0
    with nogil:
        for i in range(n):
            for t in range(tiles[i]):
                jobs[c].dst = dst.data + doff[i]
                jobs[c].src = ptrs + i * k
                jobs[c].inner = &widths[i, 0]
                jobs[c].k = k
                jobs[c].word = word[i]
                jobs[c].row = row[i]
                jobs[c].lo = rows[i] * t // tiles[i]
                jobs[c].hi = rows[i] * (t + 1) // tiles[i]
                size_view[c] = (jobs[c].hi - jobs[c].lo) * row[i]
                c += 1
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_BYTE)
