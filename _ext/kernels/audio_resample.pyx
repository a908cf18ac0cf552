"""Resamples a batch of audio signals with DALI's windowed-sinc filter: the kernel of
fn.audio_resample and of fn.decoders.audio's `sample_rate`.

`resample_batch(pool, inputs, outputs, scales, lobes)` (lists of arrays) and
`resample_storage(pool, src, dst, scales, lobes)` (batches) fill each output (length m,
channels) from its input (length n, same channels): output position j is the sum of the input
samples around input position j * scale (input samples per output sample) weighted by a
Hann-windowed sinc of `lobes` zero crossings each side (audio_resample.h has the arithmetic,
DALI's).  The
types are uint8, int8, uint16, int16, uint32, int32 and float32, each end converted as DALI's
normalizing conversion does (integers span -1..1).  Long outputs are cut into work items of
`_ITEM` positions; all run in one nogil call on the pool, largest first.
"""
import functools

cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, intptr_t

from dali._ext.kernels.audio_resample cimport (
    Job, kBlock, make_window, phase_table, phase_table_size, run, sse_taps, use_sse_taps,
    window_size,
)
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef int64_t _ITEM = 64 * kBlock        # output positions per work item (whole blocks)
cdef double _NS_PER_TAP = 1.0           # the cost estimate the pool gets

_TYPES = {np.dtype(t): k for k, t in enumerate(
    (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.float32))}
TYPES = tuple(_TYPES)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    run((<Job*>ctx) + i)


def sse(on=None):
    """Whether float mono inputs take the SSE path of the inner windows' taps; `on=False`
    switches it off (on only where the build has SSE2).  For tests: both paths give the same
    results."""
    return use_sse_taps(on) if on is not None else sse_taps


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


@functools.cache
def _tables(int lobes):
    """(window, its scale, its centre, the per-phase table) for `lobes`, made once."""
    lut, wscale, wcenter = window(lobes)
    cdef const float[::1] table = lut
    phases = np.empty(phase_table_size(lobes), np.float32)
    cdef float[::1] phase_view = phases
    phase_table(lobes, &table[0], &phase_view[0])
    lut.flags.writeable = False
    phases.flags.writeable = False
    return lut, wscale, wcenter, phases


def resample_batch(ThreadPool pool, list inputs, list outputs, scales, int lobes):
    """Resample every input array into its output array.

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
    cdef Py_ssize_t n = len(inputs), i
    if len(outputs) != n:
        raise ValueError("inputs and outputs must have the same number of samples")
    geometry = np.zeros((n, 7), np.int64)     # in ptr, length, type, out ptr, length, type, C
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
        if not dst.flags.writeable:
            raise ValueError(f"output {i} is read-only")
        geometry[i] = (src.ctypes.data, src.shape[0], _TYPES[src.dtype], dst.ctypes.data,
                       dst.shape[0], _TYPES[dst.dtype], src.shape[1])
    _run(pool, geometry, scales, lobes, [inputs, outputs])


def resample_storage(ThreadPool pool, BatchStorage src, BatchStorage dst, scales, int lobes):
    """Resample every sample of `src` into the sample of `dst` (contiguous batches of 1-D
    (length) or 2-D (length, channels) samples, the same channels; types from `TYPES`)."""
    cdef Py_ssize_t n = src.num_samples
    if not (src.is_contiguous and dst.is_contiguous):
        raise ValueError("resample_storage needs contiguous batch storage")
    if dst.num_samples != n or src.ndim != dst.ndim or src.ndim not in (1, 2):
        raise ValueError("source and destination must have as many samples, of 1 or 2 "
                         "dimensions")
    if src.dtype not in _TYPES or dst.dtype not in _TYPES:
        raise ValueError(f"unsupported types {src.dtype}, {dst.dtype}")
    if n == 0:
        return
    in_shapes = np.asarray(src.shapes, np.int64).reshape(n, src.ndim)
    out_shapes = np.asarray(dst.shapes, np.int64).reshape(n, dst.ndim)
    channels = in_shapes[:, 1] if src.ndim == 2 else np.ones(n, np.int64)
    if src.ndim == 2 and not np.array_equal(channels, out_shapes[:, 1]):
        raise ValueError("source and destination samples must have the same channels")
    geometry = np.empty((n, 7), np.int64)
    geometry[:, 0] = <intptr_t>src.data + np.asarray(src.offsets, np.int64)
    geometry[:, 1] = in_shapes[:, 0]
    geometry[:, 2] = _TYPES[src.dtype]
    geometry[:, 3] = <intptr_t>dst.data + np.asarray(dst.offsets, np.int64)
    geometry[:, 4] = out_shapes[:, 0]
    geometry[:, 5] = _TYPES[dst.dtype]
    geometry[:, 6] = channels
    _run(pool, geometry, scales, lobes, [src, dst])


cdef _run(ThreadPool pool, geometry, scales, int lobes, list keep):
    """The jobs of `geometry` (rows of in pointer, in length, in type, out pointer, out
    length, out type, channels), one per `_ITEM` outputs of a sample, run largest first."""
    cdef const int64_t[:, ::1] g = geometry
    cdef Py_ssize_t n = g.shape[0], i, k = 0, count
    cdef const double[::1] scale = np.ascontiguousarray(scales, dtype=np.float64).reshape(-1)
    if scale.shape[0] != n:
        raise ValueError(f"scales must have {n} values, got {scale.shape[0]}")
    if n and not (np.asarray(scale) > 0).all():
        raise ValueError("the scales must be positive")
    lut, ws, wc, phases = _tables(lobes)
    cdef float wscale = ws, wcenter = wc
    cdef const float[::1] table = lut
    cdef const float[::1] phase_view = phases
    keep += [lut, phases]
    pieces = (np.asarray(geometry)[:, 4] + _ITEM - 1) // _ITEM
    count = int(pieces.sum())
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    sizes = np.empty(count, np.int64)
    cdef int64_t[::1] size_view = sizes
    cdef int64_t begin
    with nogil:
        for i in range(n):
            begin = 0
            while begin < g[i, 4]:
                jobs[k].in_ = <const void*><intptr_t>g[i, 0]
                jobs[k].n_in = g[i, 1]
                jobs[k].in_type = <int>g[i, 2]
                jobs[k].out = <void*><intptr_t>g[i, 3]
                jobs[k].out_type = <int>g[i, 5]
                jobs[k].channels = <int>g[i, 6]
                jobs[k].out_begin = begin
                jobs[k].out_end = min(begin + _ITEM, g[i, 4])
                jobs[k].scale = scale[i]
                jobs[k].lut = &table[0]
                jobs[k].lut_size = table.shape[0]
                jobs[k].phases = &phase_view[0]
                jobs[k].wscale = wscale
                jobs[k].wcenter = wcenter
                jobs[k].lobes = lobes
                size_view[k] = (jobs[k].out_end - begin) * g[i, 6] * 2 * lobes
                begin += _ITEM
                k += 1
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_TAP)
