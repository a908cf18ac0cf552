"""Flips (mirrors) every sample of a batch along some of its axes, or a window of it: the
kernel of fn.flip and of fn.crop's copies.

`flip_batch(pool, src, dst, flags, anchors, shapes, dst_anchors)` copies each sample of `src`
(or a window of it, to a place in `dst`'s sample) into `dst` reversed along the axes whose
`flags` are non-zero.  Only bytes move, so any element type works (the element size is all
that matters).  Each window is collapsed (flip.h): axes of extent 1 drop out, neighbouring
axes that are both reversed or both kept merge where both samples allow it, and the kept
innermost block (a pixel's channels, a window's row, the whole sample when nothing is
reversed or cut) is copied as one unit; a sample that is not flipped or cut at all is one
memcpy.  Windows larger than `_TILE_BYTES` are split along their outermost collapsed axis;
all work items run in one nogil call on the pool, largest first (tiny batches stay on the
caller, see thread_pool).
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t

from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef int64_t _TILE_BYTES = 256 * 1024   # work items of at least this size (or whole samples)
cdef double _NS_PER_BYTE = 0.25         # the cost estimate the pool gets


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    dali_flip_run((<dali_flip_job*>ctx) + i)


def flip_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, flags, anchors=None,
               shapes=None, dst_anchors=None):
    """Copy a window of every source sample into its destination sample, reversed along every
    axis d with flags[i, d] != 0: by default dst[i] = src[i] flipped.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src, dst : BatchStorage
        Batches with the same element size and number of samples and dimensions; dst is
        contiguous and written (outside the windows it is left as it was), src contiguous or
        per-sample.  Without `anchors`, `shapes` and `dst_anchors` their sample shapes are the
        same.
    flags : array_like (num_samples, ndim)
        Non-zero where a sample's axis is reversed.
    anchors : array_like (num_samples, ndim) or None
        Where each window starts in its source sample (None: at 0).
    shapes : array_like (num_samples, ndim) or None
        The windows' extents (None: the destination samples' shapes).
    dst_anchors : array_like (num_samples, ndim) or None
        Where each window goes in its destination sample (None: at 0).  Windows must lie
        inside both samples.
    """
    if not dst.is_contiguous:
        raise ValueError("flip_batch writes into contiguous batch storage only")
    cdef Py_ssize_t n = src.num_samples, i, k, t, count = 0, bad = -1
    cdef int ndim = src.ndim, d
    cdef int64_t lo, to
    if dst.num_samples != n or dst.ndim != ndim:
        raise ValueError("source and destination must have the same number of samples and "
                         "dimensions")
    if src.dtype.itemsize != dst.dtype.itemsize:
        raise ValueError("source and destination must have the same element size")
    if ndim > DALI_FLIP_MAX_DIMS:
        raise ValueError(f"at most {DALI_FLIP_MAX_DIMS} dimensions, got {ndim}")
    cdef const int64_t[:, ::1] dst_shapes = _rows(dst.shapes, n, ndim, "dst shapes")
    cdef const int64_t[:, ::1] src_shapes = _rows(src.shapes, n, ndim, "src shapes")
    cdef bint windows = not (anchors is None and shapes is None and dst_anchors is None)
    cdef const int64_t[:, ::1] extents = dst_shapes if shapes is None else \
        _rows(shapes, n, ndim, "shapes")
    cdef const int64_t[:, ::1] src_at = None if anchors is None else \
        _rows(anchors, n, ndim, "anchors")
    cdef const int64_t[:, ::1] dst_at = None if dst_anchors is None else \
        _rows(dst_anchors, n, ndim, "dst_anchors")
    cdef const uint8_t[:, ::1] f = _rows(flags, n, ndim, "flags", np.uint8)
    if n == 0:
        return
    with nogil:
        for i in range(n):
            for d in range(ndim):
                if windows:
                    lo = 0 if src_at is None else src_at[i, d]
                    to = 0 if dst_at is None else dst_at[i, d]
                    if lo < 0 or to < 0 or extents[i, d] < 0 or \
                            lo + extents[i, d] > src_shapes[i, d] or \
                            to + extents[i, d] > dst_shapes[i, d]:
                        bad = i
                elif src_shapes[i, d] != dst_shapes[i, d]:
                    bad = i
    if bad >= 0:
        raise ValueError("the windows must lie inside their source and destination samples"
                         if windows else "source and destination must have the same sample "
                         "shapes")
    keep = []
    cdef const char** src_data = sample_data(src, keep)
    cdef const int64_t[::1] dst_off = dst.offsets
    cdef int64_t itemsize = src.dtype.itemsize, e
    cdef dali_flip_job* samples = <dali_flip_job*>job_array(n, sizeof(dali_flip_job), keep)
    cdef int64_t* nbytes = <int64_t*>job_array(n, sizeof(int64_t), keep)
    cdef int64_t* tiles = <int64_t*>job_array(n, sizeof(int64_t), keep)
    with nogil:
        for i in range(n):
            nbytes[i] = dali_flip_collapse(
                ndim, &extents[i, 0] if ndim else NULL, &src_shapes[i, 0] if ndim else NULL,
                &src_at[i, 0] if src_at is not None and ndim else NULL,
                &dst_shapes[i, 0] if ndim else NULL,
                &dst_at[i, 0] if dst_at is not None and ndim else NULL,
                &f[i, 0] if ndim else NULL, itemsize, &samples[i])
            samples[i].src = src_data[i] + samples[i].src_offset
            samples[i].dst = dst.data + dst_off[i] + samples[i].dst_offset
            t = 1
            if samples[i].ndim > 0:
                t = min(samples[i].extent[0], max(1, nbytes[i] // _TILE_BYTES))
            tiles[i] = t
            count += t
    # one item a sample (no sample tiled): the samples' descriptions are the items
    cdef dali_flip_job* jobs = samples if count == n else \
        <dali_flip_job*>job_array(count, sizeof(dali_flip_job), keep)
    sizes = np.empty(count, dtype=np.int64)
    cdef int64_t[::1] size_view = sizes
    count = 0
    with nogil:
        for i in range(n):
            e = samples[i].extent[0] if samples[i].ndim > 0 else 1
            for k in range(tiles[i]):
                if jobs != samples:
                    jobs[count] = samples[i]
                jobs[count].lo = e * k // tiles[i]
                jobs[count].hi = e * (k + 1) // tiles[i]
                size_view[count] = nbytes[i] // tiles[i]
                count += 1
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_BYTE)


def _rows(values, Py_ssize_t n, int ndim, str name, dtype=np.int64):
    """`values` as a C-contiguous (n, ndim) array of `dtype` (no copy when it is one)."""
    a = np.ascontiguousarray(values, dtype=dtype)
    if a.shape != (n, ndim):
        raise ValueError(f"{name} must have shape ({n}, {ndim}), got {np.shape(values)}")
    return a
