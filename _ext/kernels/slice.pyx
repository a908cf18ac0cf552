"""Copies an N-D window of every sample of a batch, placed anywhere relative to the sample
(the part outside given by a border policy), converting the element type if asked: the kernel
of fn.slice, fn.pad and fn.paste.

`slice_batch(pool, src, dst, anchors, policy, fill, channel_axis)` writes every output sample
in full: element `p` of output sample i is source element `anchors[i] + p` where that lies
inside the source, else what `policy` says (see slice.h): CONSTANT the fill value (of the
channel, when `fill` has one value per channel), EDGE the nearest edge element, REFLECT_1001
the mirror image repeating the edge, REFLECT_101 the mirror image without repeating it, WRAP
the source repeated.  The output type is the input's (bytes are copied) or uint8, float16 or
float (saturating at the type's finite limits and truncating, as DALI's slice kernels do).
Samples larger than `_TILE_BYTES` are split along their outermost axis; all work items run in
one nogil call on the pool, largest first.  A sample with the previous one's shapes, window,
fill values and conversion shares its description (index maps, runs, fill pattern): a batch of
one shape is described once.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t
from libc.string cimport memcmp
from libcpp.vector cimport vector

from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

CONSTANT, EDGE, REFLECT_1001, REFLECT_101, WRAP = range(5)
_TYPES = {np.dtype(t): k for k, t in enumerate(
    (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64,
     np.float16, np.float32, np.float64))}
_TYPES[np.dtype(np.bool_)] = _TYPES[np.dtype(np.uint8)]     # copied as bytes
_CONVERTED = (np.dtype(np.uint8), np.dtype(np.float16), np.dtype(np.float32))

cdef int64_t _TILE_BYTES = 256 * 1024   # work items of at least this size (or whole samples)
cdef double _NS_PER_BYTE = 0.3          # the cost estimate the pool gets


cdef struct _Ctx:
    run_fn fn
    Job* jobs


cdef bint _same_plan(Py_ssize_t i, int ndim, const int64_t[:, ::1] in_shape,
                     const int64_t[:, ::1] out_shape, const int64_t[:, ::1] at,
                     const char* fill, int64_t fill_stride, int64_t fill_bytes,
                     const cnp.uint8_t[::1] casts) noexcept nogil:
    """Whether sample i's Sample would be sample i - 1's (its window, shapes, fill values and
    conversion): a batch of one shape and window (pad, paste) describes one sample only."""
    cdef int k
    if casts[i] != casts[i - 1]:
        return False
    for k in range(ndim):
        if in_shape[i, k] != in_shape[i - 1, k] or out_shape[i, k] != out_shape[i - 1, k] or \
                at[i, k] != at[i - 1, k]:
            return False
    return fill_stride == 0 or memcmp(fill + i * fill_stride, fill + (i - 1) * fill_stride,
                                      fill_bytes) == 0


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef _Ctx* c = <_Ctx*>ctx
    c.fn(c.jobs + i)


def slice_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, anchors,
                int policy=CONSTANT, fill=None, int channel_axis=-1, cast=None):
    """Fill every sample of `dst` with the window of its `src` sample that starts at `anchors`.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src, dst : BatchStorage
        Batches with the same number of samples and dimensions, dst contiguous and src
        contiguous or per-sample; dst's type is src's or uint8, float16 or float.
    anchors : array_like (num_samples, ndim)
        Where each output sample starts in source coordinates (anywhere).
    policy : int
        CONSTANT, EDGE, REFLECT_1001, REFLECT_101 or WRAP: what lies outside the source.
        Other than CONSTANT, a source must not be empty along an axis its window covers.
    fill : array (num_samples, k) of dst's type, or None (zeros)
        The CONSTANT values: one (k = 1) or one per channel (k = extent of `channel_axis` in
        every output sample).
    channel_axis : int
        The axis whose index picks the fill value when k > 1.
    cast : array_like (num_samples,) of bool, or None
        Samples converted with plain C++ casts (integers wrap, float to uint8 through int32,
        float16 overflows to infinity) instead of saturating: what DALI does when it pads
        with per-channel fill values.
    """
    if not dst.is_contiguous:
        raise ValueError("slice_batch writes into contiguous batch storage only")
    cdef Py_ssize_t n = src.num_samples, i, k, count = 0
    cdef int ndim = src.ndim
    if dst.num_samples != n or dst.ndim != ndim:
        raise ValueError("source and destination must have the same number of samples and "
                         "dimensions")
    if ndim > MAX_DIMS:
        raise ValueError(f"at most {MAX_DIMS} dimensions, got {ndim}")
    if not CONSTANT <= policy <= WRAP:
        raise ValueError(f"unknown policy {policy}")
    in_type, out_type = np.dtype(src.dtype), np.dtype(dst.dtype)
    if in_type not in _TYPES:
        raise ValueError(f"unsupported input type {in_type}")
    if out_type != in_type and out_type not in _CONVERTED:
        raise ValueError(f"cannot convert {in_type} to {out_type}")
    cdef run_fn fn = pick(_TYPES[in_type], -1 if out_type == in_type else _TYPES[out_type],
                          in_type.itemsize)
    cdef const int64_t[:, ::1] in_shape = np.ascontiguousarray(
        src.shapes, dtype=np.int64).reshape(n, ndim)
    out_np = np.ascontiguousarray(dst.shapes, dtype=np.int64).reshape(n, ndim)
    cdef const int64_t[:, ::1] out_shape = out_np
    anchors = np.ascontiguousarray(anchors, dtype=np.int64)
    if anchors.shape != (n, ndim):
        raise ValueError(f"anchors must have shape ({n}, {ndim}), got {anchors.shape}")
    cdef const int64_t[:, ::1] at = anchors
    fill = np.zeros((n, 1), out_type) if fill is None else np.ascontiguousarray(fill, out_type)
    if fill.ndim != 2 or fill.shape[0] != n or fill.shape[1] < 1:
        raise ValueError(f"fill must have shape ({n}, k), got {fill.shape}")
    cdef Py_ssize_t nfill = fill.shape[1]
    if nfill > 1 and n:
        if not 0 <= channel_axis < ndim or (out_np[:, channel_axis] != nfill).any():
            raise ValueError("per-channel fill values need a channel axis with as many "
                             "channels in every output sample")
    if policy != CONSTANT and n:
        covered = (out_np > 0).all(axis=1)[:, None] & (np.asarray(in_shape) == 0)
        if covered.any():
            raise ValueError("only the CONSTANT policy fills a window over an empty source")
    cdef const cnp.uint8_t[::1] casts = np.zeros(n, np.uint8) if cast is None else \
        np.ascontiguousarray(cast, dtype=np.uint8)
    if casts.shape[0] != n:
        raise ValueError(f"cast must have {n} values, got {casts.shape[0]}")
    if n == 0:
        return
    cdef const char* fill_data = <const char*>cnp.PyArray_DATA(fill)
    cdef int64_t fill_stride = fill.strides[0]
    keep = []
    cdef const char** src_data = sample_data(src, keep)
    cdef const int64_t[::1] dst_off = dst.offsets
    cdef int64_t out_size = out_type.itemsize, nbytes
    cdef vector[Sample] samples
    samples.resize(n)
    cdef vector[Py_ssize_t] plan     # the sample whose Sample describes sample i
    plan.resize(n)
    sizes_np = np.empty(n, np.int64)
    tiles_np = np.empty(n, np.int64)
    cdef int64_t[::1] sample_bytes = sizes_np
    cdef int64_t[::1] tiles = tiles_np
    cdef Sample* s
    try:
        with nogil:
            for i in range(n):
                if i and _same_plan(i, ndim, in_shape, out_shape, at, fill_data, fill_stride,
                                    nfill * out_size, casts):
                    plan[i] = plan[i - 1]
                else:
                    plan[i] = i
                    s = &samples[i]
                    setup(s, ndim, &in_shape[i, 0] if ndim else NULL,
                          &out_shape[i, 0] if ndim else NULL, &at[i, 0] if ndim else NULL,
                          policy, channel_axis)
                    s.fill = fill_data + i * fill_stride
                    s.nfill = nfill
                    s.cast = casts[i] != 0
                    setup_pattern(s, out_size)
                nbytes = out_size
                for k in range(ndim):
                    nbytes *= out_shape[i, k]
                sample_bytes[i] = nbytes
                tiles[i] = 0 if nbytes == 0 else min(samples[plan[i]].extent[0],
                                                     max(1, nbytes // _TILE_BYTES))
                count += tiles[i]
    except MemoryError:                 # std::bad_alloc of a sample's index maps
        raise MemoryError(f"cannot allocate the slice kernel's index maps (sample {i})") \
            from None
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    job_sizes = np.empty(count, np.int64)
    cdef int64_t[::1] size_view = job_sizes
    cdef int64_t e
    count = 0
    with nogil:
        for i in range(n):
            e = samples[plan[i]].extent[0]
            for k in range(tiles[i]):
                jobs[count].s = &samples[plan[i]]
                jobs[count].src = src_data[i]
                jobs[count].dst = dst.data + dst_off[i]
                jobs[count].lo = e * k // tiles[i]
                jobs[count].hi = e * (k + 1) // tiles[i]
                size_view[count] = sample_bytes[i] // tiles[i]
                count += 1
    cdef _Ctx ctx
    ctx.fn = fn
    ctx.jobs = jobs
    run_largest_first(pool, _run_job, &ctx, job_sizes, _NS_PER_BYTE)
