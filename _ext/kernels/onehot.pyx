# cython: boundscheck=False, wraparound=False, cdivision=True
"""One-hot encoding of a batch of class indices: the kernel of fn.one_hot.

Sample i of the source is seen as `outer[i]` rows of `inner[i]` indices and is written as
`outer[i]` blocks of `num_classes` rows of `inner[i]` elements: element (o, c, j) is `on` where
the index at (o, j), truncated toward zero, is c, else `off`.  Indices outside [0, num_classes)
give rows of `off` only.  The output values are given as bit patterns of the output's element
size (1, 2, 4 or 8 bytes), so the type conversion of on/off is the caller's.  A sample is cut
into work items of whole blocks; all items run in one nogil call on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport (
    int8_t,
    int16_t,
    int32_t,
    int64_t,
    uint8_t,
    uint16_t,
    uint32_t,
    uint64_t,
)
from libc.string cimport memset

from dali._ext.kernels.batch_shapes cimport volume
from dali._ext.kernels.fused_types cimport number_t
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef int64_t _TILE_BYTES = 256 * 1024   # work items of at least this size (or whole samples)
cdef double _NS_PER_BYTE = 0.2          # the cost estimate the pool gets

# The source types, in the order of the type codes `_run_job` dispatches on.
_SOURCE_TYPES = [np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                       np.uint32, np.int64, np.uint64, np.float32, np.float64)]


cdef struct Job:
    const char* src
    char* dst
    int src_type            # index in _SOURCE_TYPES
    int word                # output element size in bytes
    int64_t inner
    int64_t classes
    int64_t lo, hi          # blocks [lo, hi)
    uint64_t on, off


cdef inline void _put(char* dst, int64_t k, int word, uint64_t value) noexcept nogil:
    if word == 1:
        (<uint8_t*>dst)[k] = <uint8_t>value
    elif word == 2:
        (<uint16_t*>dst)[k] = <uint16_t>value
    elif word == 4:
        (<uint32_t*>dst)[k] = <uint32_t>value
    else:
        (<uint64_t*>dst)[k] = value


cdef void _fill(char* dst, int64_t count, int word, uint64_t value) noexcept nogil:
    cdef int64_t k
    if value == 0:
        memset(dst, 0, count * word)
    elif word == 1:
        memset(dst, <uint8_t>value, count)
    elif word == 2:
        for k in range(count):
            (<uint16_t*>dst)[k] = <uint16_t>value
    elif word == 4:
        for k in range(count):
            (<uint32_t*>dst)[k] = <uint32_t>value
    else:
        for k in range(count):
            (<uint64_t*>dst)[k] = value


cdef void _hot(const number_t* src, const Job* j) noexcept nogil:
    """Set the `on` elements of blocks [lo, hi) (already filled with `off`)."""
    cdef int64_t o, k, c, inner = j.inner, classes = j.classes
    cdef double v
    for o in range(j.lo, j.hi):
        for k in range(inner):
            if number_t is float or number_t is double:
                v = src[o * inner + k]
                if not (v > -1.0 and v < classes):
                    continue
                c = <int64_t>v
            elif number_t is uint64_t:
                if src[o * inner + k] >= <uint64_t>classes:
                    continue
                c = <int64_t>src[o * inner + k]
            else:
                c = src[o * inner + k]
                if c < 0 or c >= classes:
                    continue
            _put(j.dst, (o * classes + c) * inner + k, j.word, j.on)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    cdef int64_t block = j.classes * j.inner
    _fill(j.dst + j.lo * block * j.word, (j.hi - j.lo) * block, j.word, j.off)
    if j.src_type == 0:
        _hot(<const int8_t*>j.src, j)
    elif j.src_type == 1:
        _hot(<const uint8_t*>j.src, j)
    elif j.src_type == 2:
        _hot(<const int16_t*>j.src, j)
    elif j.src_type == 3:
        _hot(<const uint16_t*>j.src, j)
    elif j.src_type == 4:
        _hot(<const int32_t*>j.src, j)
    elif j.src_type == 5:
        _hot(<const uint32_t*>j.src, j)
    elif j.src_type == 6:
        _hot(<const int64_t*>j.src, j)
    elif j.src_type == 7:
        _hot(<const uint64_t*>j.src, j)
    elif j.src_type == 8:
        _hot(<const float*>j.src, j)
    else:
        _hot(<const double*>j.src, j)


def one_hot_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, outer, inner,
                  int64_t num_classes, uint64_t on, uint64_t off):
    """Write the one-hot encoding of every source sample into `dst`.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src : BatchStorage
        Contiguous class indices: any integer type, float32 or float64.
    dst : BatchStorage
        Contiguous, elements of 1, 2, 4 or 8 bytes; sample i holds
        outer[i] * num_classes * inner[i] elements.
    outer, inner : int64 arrays (num_samples,)
        Rows and row length of each source sample (outer[i] * inner[i] indices).
    num_classes : int
    on, off : int
        Bit patterns of the output values (the low bytes of the element size are used).
    """
    cdef Py_ssize_t n = src.num_samples, i, t, c, count = 0
    if not (src.is_contiguous and dst.is_contiguous) or dst.num_samples != n:
        raise ValueError("one_hot_batch needs contiguous storage with the same number of "
                         "samples")
    if src.dtype not in _SOURCE_TYPES:
        raise ValueError(f"unsupported index type {src.dtype}")
    cdef int src_type = _SOURCE_TYPES.index(src.dtype)
    cdef int word = dst.dtype.itemsize
    if word not in (1, 2, 4, 8):
        raise ValueError(f"unsupported output element size {word}")
    if num_classes < 0:
        raise ValueError("num_classes must not be negative")
    cdef const int64_t[::1] rows = np.ascontiguousarray(outer, dtype=np.int64)
    cdef const int64_t[::1] cols = np.ascontiguousarray(inner, dtype=np.int64)
    if rows.shape[0] != n or cols.shape[0] != n:
        raise ValueError(f"outer and inner must have shape ({n},)")
    cdef const int64_t[:, ::1] src_shapes = np.ascontiguousarray(src.shapes, np.int64)
    cdef const int64_t[:, ::1] dst_shapes = np.ascontiguousarray(dst.shapes, np.int64)
    for i in range(n):
        if volume(src_shapes, i) != rows[i] * cols[i]:
            raise ValueError("the source's sample sizes do not match outer * inner")
        if volume(dst_shapes, i) != rows[i] * cols[i] * num_classes:
            raise ValueError("the destination's sample sizes do not match outer * "
                             "num_classes * inner")
    if n == 0:
        return
    keep = []
    cdef const int64_t[::1] soff = np.ascontiguousarray(src.offsets, np.int64)
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets, np.int64)
    cdef int64_t* tiles = <int64_t*>job_array(n, sizeof(int64_t), keep)
    cdef int64_t block
    with nogil:
        for i in range(n):
            block = num_classes * cols[i] * word
            t = 1
            if rows[i] > 1:
                t = min(rows[i], max(1, rows[i] * block // _TILE_BYTES))
            tiles[i] = t
            count += t
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    sizes = np.empty(count, dtype=np.int64)
    cdef int64_t[::1] size_view = sizes
    c = 0
    with nogil:
        for i in range(n):
            for t in range(tiles[i]):
                jobs[c].src = src.data + soff[i]
                jobs[c].dst = dst.data + doff[i]
                jobs[c].src_type = src_type
                jobs[c].word = word
                jobs[c].inner = cols[i]
                jobs[c].classes = num_classes
                jobs[c].lo = rows[i] * t // tiles[i]
                jobs[c].hi = rows[i] * (t + 1) // tiles[i]
                jobs[c].on = on
                jobs[c].off = off
                size_view[c] = (jobs[c].hi - jobs[c].lo) * num_classes * cols[i] * word
                c += 1
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_BYTE)
