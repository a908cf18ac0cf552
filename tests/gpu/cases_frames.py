"""Random cases of fn.element_extract and fn.sequence_rearrange on the GPU (frame copies by
`dali/ops/_conditional/copy_samples.cu`, one byte range per output frame, built by
`dali.ops.tensor._frames.frame_copies`), shared by the emulated and the device tests: the CPU
operators give the expected outputs; the kernel runs through a backend (`gpu_cases.emulated`
or `gpu_cases.on_device`)."""

from __future__ import annotations

import numpy as np
from gpu_cases import _pack, _random, _unpack
from pipeline_utils import run_op

from dali.ops._conditional import _copy_samples_gpu
from dali.ops.tensor import _frames

COPY_CU = _copy_samples_gpu.__file__.replace("_copy_samples_gpu.py", "copy_samples.cu")
DTYPES = (np.uint8, np.int16, np.float32, np.float64, np.int32)


def sequence_case(seed):
    """(samples, element_map, new_orders): 1 to 6 sequences of one type, 1 to 5 frames each,
    frames of 0 to 3 x 1 to 4 elements (empty frames too), an element map valid for every
    sequence and a per-sample new order (repeats, drops)."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(DTYPES[seed % len(DTYPES)])
    n = int(rng.integers(1, 7))
    samples = [_random(rng, (int(rng.integers(1, 6)), int(rng.integers(0, 4)),
                             int(rng.integers(1, 5))), dtype) for _ in range(n)]
    shortest = min(len(s) for s in samples)
    element_map = [int(e) for e in rng.integers(0, shortest, int(rng.integers(1, 4)))]
    orders = [rng.integers(0, len(s), int(rng.integers(1, 8))).astype(np.int32)
              for s in samples]
    return samples, element_map, orders


def _copy(backend, samples, out_shapes, sources, frames, start):
    dtype = samples[0].dtype
    src = _pack(samples, dtype).view(np.uint8)
    sizes = np.array([int(np.prod(s, dtype=np.int64)) * dtype.itemsize for s in out_shapes])
    dst = np.zeros(max(int(sizes.sum()), 16), np.uint8)
    in_sizes = np.array([s.nbytes for s in samples], np.int64)
    fbytes = in_sizes // np.array([len(s) for s in samples])
    for launch in _frames.frame_copies(np.cumsum(in_sizes) - in_sizes, np.cumsum(sizes) - sizes,
                                       sources, fbytes, frames, start,
                                       _copy_samples_gpu.alignment(src.ctypes.data,
                                                                   dst.ctypes.data)):
        dst = backend(COPY_CU, launch, [src, src, dst, dst, launch.ranges])[2]
    return _unpack(dst[:int(sizes.sum())].view(dtype), out_shapes)


def element_extract_kernel(backend, samples, element_map, orders):
    """One output list per entry of `element_map`, the kernel's copies."""
    n = len(samples)
    start = np.arange(n + 1)
    return [_copy(backend, samples, [s.shape[1:] for s in samples], start[:-1],
                  np.full(n, e), start) for e in element_map]


def element_extract_expected(samples, element_map, orders):
    def build(fn, x):
        out = fn.element_extract(x, element_map=element_map)
        return tuple(out) if isinstance(out, list) else out

    return run_op(build, [samples], layouts=["FHW"])


def sequence_rearrange_kernel(backend, samples, element_map, orders):
    counts = [len(o) for o in orders]
    start = np.concatenate([[0], np.cumsum(counts)])
    shapes = [(c, *s.shape[1:]) for c, s in zip(counts, samples, strict=True)]
    return _copy(backend, samples, shapes, np.arange(len(samples)), np.concatenate(orders),
                 start)


def sequence_rearrange_expected(samples, element_map, orders):
    return run_op(lambda fn, x, o: fn.sequence_rearrange(x, new_order=o), [samples, orders],
                  layouts=["FHW", None])[0]
