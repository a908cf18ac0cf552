"""Resamples a batch of audio signals with DALI's windowed-sinc filter: the kernel of
fn.audio_resample and of fn.decoders.audio's `sample_rate`.

`resample_batch(pool, inputs, outputs, scales, lobes)` fills each output (length m, channels)
from its input (length n, same channels): output position j is the sum of the input samples
around input position j * scale (input samples per output sample) weighted by a Hann-windowed
sinc of `lobes` zero crossings each side (audio_resample.h has the arithmetic, DALI's).  The
types are uint8, int8, uint16, int16, uint32, int32 and float32, each end converted as DALI's
normalizing conversion does (integers span -1..1).  Long outputs are cut into work items of
`_ITEM` positions; all run in one nogil call on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t

from dali._ext.kernels.audio_resample cimport (
    Job, kBlock, make_window, run, window_size,
)
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef int64_t _ITEM = 64 * kBlock        # output positions per work item (whole blocks)
cdef double _NS_PER_TAP = 1.0           # the cost estimate the pool gets

_TYPES = {np.dtype(t): k for k, t in enumerate(
    (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.float32))}
TYPES = tuple(_TYPES)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    run((<Job*>ctx) + i)


def lobes_for_quality(double quality):
    """The filter's zero crossings on each side for DALI's `quality` (0..100): 3 at 0, 16 at
    50, 64 at 100."""
    return int(round(0.007 * quality * quality - 0.09 * quality + 3))


def resampled_length(int64_t length, double in_rate, double out_rate):
    """DALI's output length: ceil(length * out_rate / in_rate)."""
    return int(np.ceil(length * out_rate / in_rate))


def window(int lobes):
    """The tabulated filter (float32 array), its scale and its centre."""
    if lobes < 1:
        raise ValueError(f"lobes must be positive, got {lobes}")
    lut = np.empty(window_size(lobes), np.float32)
    cdef float[::1] view = lut
    cdef float wscale, wcenter
    make_window(lobes, &view[0], &wscale, &wcenter)
    return lut, wscale, wcenter


def resample_batch(ThreadPool pool, list inputs, list outputs, scales, int lobes):
    """Resample every input into its output.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    inputs, outputs : lists of C-contiguous 2-D arrays (length, channels)
        One of each per sample, the same number of channels; types from `TYPES`.
    scales : array_like of float
        Input samples per output sample, one per sample (positive).
    lobes : int
        The filter's zero crossings on each side (`lobes_for_quality`).
    """
    cdef Py_ssize_t n = len(inputs), i, k, count = 0
    cdef cnp.ndarray a, b
    if len(outputs) != n:
        raise ValueError("inputs and outputs must have the same number of samples")
    cdef const double[::1] scale = np.ascontiguousarray(scales, dtype=np.float64).reshape(-1)
    if scale.shape[0] != n:
        raise ValueError(f"scales must have {n} values, got {scale.shape[0]}")
    lut, wscale, wcenter = window(lobes)
    cdef const float[::1] table = lut
    keep = [lut]
    pieces = []
    for i in range(n):
        src, dst = inputs[i], outputs[i]
        for name, arr in (("input", src), ("output", dst)):
            if not isinstance(arr, np.ndarray) or arr.ndim != 2 or not arr.flags.c_contiguous:
                raise ValueError(f"{name} {i} must be a C-contiguous 2-D array")
            if arr.dtype not in _TYPES:
                raise ValueError(f"{name} {i}: unsupported type {arr.dtype}")
        if src.shape[1] != dst.shape[1]:
            raise ValueError(f"sample {i}: the input has {src.shape[1]} channels, the output "
                             f"{dst.shape[1]}")
        if not scale[i] > 0:
            raise ValueError(f"sample {i}: the scale must be positive, got {scale[i]}")
        if not dst.flags.writeable:
            raise ValueError(f"output {i} is read-only")
        for k in range(0, dst.shape[0], _ITEM):
            pieces.append((i, k, min(k + _ITEM, dst.shape[0])))
    count = len(pieces)
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    sizes = np.empty(count, np.int64)
    for k, (i, begin, end) in enumerate(pieces):
        a, b = inputs[i], outputs[i]
        jobs[k].in_ = cnp.PyArray_DATA(a)
        jobs[k].in_type = _TYPES[a.dtype]
        jobs[k].n_in = a.shape[0]
        jobs[k].channels = a.shape[1]
        jobs[k].out = cnp.PyArray_DATA(b)
        jobs[k].out_type = _TYPES[b.dtype]
        jobs[k].out_begin = begin
        jobs[k].out_end = end
        jobs[k].scale = scale[i]
        jobs[k].lut = &table[0]
        jobs[k].lut_size = table.shape[0]
        jobs[k].wscale = wscale
        jobs[k].wcenter = wcenter
        jobs[k].lobes = lobes
        sizes[k] = (end - begin) * a.shape[1] * 2 * lobes
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_TAP)
