# cython: boundscheck=False, wraparound=False, cdivision=True
"""Reductions of every sample of a batch over some of its axes: the kernel of
fn.reductions.* (min, max, sum, mean, mean_square, rms, variance, std_dev).

`reduce_batch` checks the types and sizes, describes each sample once (reduce.h collapses its
shape) and runs one work item per sample on the pool without the GIL, largest first.  The
accumulators of the sums live in one scratch block for the whole batch.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t

from dali._ext.kernels.reduce cimport (
    DALI_RED_MAX_DIMS,
    dali_red_collapse,
    dali_red_job,
    dali_red_run,
)
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_ELEMENT = 0.7      # the cost estimate the pool gets

OPS = ("min", "max", "sum", "mean", "mean_square", "rms", "variance", "std_dev")
# The element types, in the order of reduce.h's type codes.
TYPES = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                    np.uint32, np.int64, np.uint64, np.float32))
_F32 = np.dtype(np.float32)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    dali_red_run((<dali_red_job*>ctx) + i)


def _out_type_ok(str op, src, dst):
    if op in ("min", "max"):
        return dst == src
    if op in ("mean_square", "variance", "std_dev") or dst == _F32:
        return dst == _F32
    return dst.kind in "iu"


def reduce_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, str op, reduced,
                 BatchStorage mean=None, int64_t ddof=0):
    """Reduce every sample of `src` over the axes d with reduced[d] != 0 into `dst`.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src : BatchStorage
        Contiguous; any integer type or float32.
    dst : BatchStorage
        Contiguous; sample i holds as many elements as src's sample has along the kept axes.
        Its type: min/max: src's; mean_square, variance, std_dev: float32; sum, mean, rms:
        float32 or an integer type (the sum wraps to it; mean and rms truncate).
    op : str
        One of OPS.
    reduced : array_like of src.ndim flags
    mean : BatchStorage or None
        variance/std_dev: float32 samples of 1 element (used for every output element) or of
        as many elements as dst's sample.
    ddof : int
        variance/std_dev: the divisor is the reduced count minus ddof.
    """
    cdef Py_ssize_t n = src.num_samples, i
    cdef int ndim = src.ndim, d
    if op not in OPS:
        raise ValueError(f"unknown reduction {op!r}")
    if not (src.is_contiguous and dst.is_contiguous) or dst.num_samples != n:
        raise ValueError("reduce_batch needs contiguous storage with the same number of "
                         "samples")
    if src.dtype not in TYPES or dst.dtype not in TYPES:
        raise ValueError(f"unsupported types {src.dtype} -> {dst.dtype}")
    if not _out_type_ok(op, src.dtype, dst.dtype):
        raise ValueError(f"{op} of {src.dtype} cannot give {dst.dtype}")
    cdef const uint8_t[::1] flags = np.ascontiguousarray(reduced, dtype=np.uint8)
    if flags.shape[0] != ndim or ndim > DALI_RED_MAX_DIMS:
        raise ValueError(f"reduced must have {ndim} flags (at most {DALI_RED_MAX_DIMS})")
    cdef bint centred = op in ("variance", "std_dev")
    if centred != (mean is not None):
        raise ValueError("variance and std_dev (only) take a mean")
    if mean is not None and (not mean.is_contiguous or mean.num_samples != n or
                             mean.dtype != _F32):
        raise ValueError("the mean must be contiguous float32 storage with a sample per "
                         "source sample")
    keep = []
    cdef dali_red_job* jobs = <dali_red_job*>job_array(n, sizeof(dali_red_job), keep)
    cdef const int64_t[:, ::1] shapes = np.ascontiguousarray(src.shapes, np.int64)
    cdef const int64_t[:, ::1] dst_shapes = np.ascontiguousarray(dst.shapes, np.int64)
    cdef const int64_t[:, ::1] mean_shapes = (
        np.ascontiguousarray(mean.shapes, np.int64) if mean is not None else None)
    cdef int64_t total = 0, vol
    sizes = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] size_view = sizes
    for i in range(n):
        dali_red_collapse(ndim, &shapes[i, 0] if ndim else NULL, &flags[0] if ndim else NULL,
                          jobs + i)
        vol = 1
        for d in range(dst_shapes.shape[1]):
            vol *= dst_shapes[i, d]
        if vol != jobs[i].out_count:
            raise ValueError(f"sample {i}: the destination has {vol} elements, the reduction "
                             f"gives {jobs[i].out_count}")
        if mean is not None:
            vol = 1
            for d in range(mean_shapes.shape[1]):
                vol *= mean_shapes[i, d]
            if vol != 1 and vol != jobs[i].out_count:
                raise ValueError(f"sample {i}: the mean has {vol} elements, not 1 or "
                                 f"{jobs[i].out_count}")
            jobs[i].mean_count = vol
        total += jobs[i].out_count
        size_view[i] = jobs[i].out_count * jobs[i].count
    if n == 0:
        return
    cdef char* acc = <char*>job_array(total, 8, keep)
    cdef const int64_t[::1] soff = np.ascontiguousarray(src.offsets, np.int64)
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets, np.int64)
    cdef const int64_t[::1] moff = (
        np.ascontiguousarray(mean.offsets, np.int64) if mean is not None else None)
    cdef int code = OPS.index(op), src_type = TYPES.index(src.dtype)
    cdef int dst_type = TYPES.index(dst.dtype)
    total = 0
    for i in range(n):
        jobs[i].src = src.data + soff[i]
        jobs[i].dst = dst.data + doff[i]
        jobs[i].mean = <const float*>(mean.data + moff[i]) if mean is not None else NULL
        jobs[i].acc = acc + total * 8
        jobs[i].op = code
        jobs[i].src_type = src_type
        jobs[i].dst_type = dst_type
        jobs[i].ddof = ddof
        total += jobs[i].out_count
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_ELEMENT)
