"""Host side of fn.jitter's CUDA kernels (`jitter.cu`): the per-sample descriptors and the
launch configuration, from the batch's shapes, the plan's masks and the samples' ids (the
counters of their random streams).

A launch is `kernel(grid, block, (src, dst, samples, numpy.uint64(key), numpy.uint32(stream),
numpy.int32(degree), numpy.int32(linear), numpy.float32(fill)))`, `key` being the operator's
Philox key of the iteration (`ws.random_key()`).
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 7                      # int64 fields of a JitterSample
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
_KERNELS = {np.dtype(np.uint8): "jitter_u8", np.dtype(np.float32): "jitter_f32"}


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (n, FIELDS) int64: the JitterSample array


def launch(shapes, masks, sample_ids, dtype, src_offsets=None, dst_offsets=None):
    """The `Launch` of a batch of (H, W, C) `shapes` of `dtype` (uint8 or float32); samples
    whose mask is 0 are copied.  Offsets are the samples' byte offsets (None: packed)."""
    kernel = _KERNELS.get(np.dtype(dtype))
    if kernel is None:
        raise ValueError(f"jitter.cu has no kernel for {np.dtype(dtype)}")
    shapes = np.asarray(shapes, np.int64).reshape(len(shapes), -1)
    n = len(shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a jitter launch takes at most {MAX_SAMPLES} samples, not {n}")
    if shapes.shape[1] != 3:
        raise ValueError("jitter.cu takes (H, W, C) samples")
    volumes = np.prod(shapes, axis=1)
    samples = np.zeros((n, FIELDS), np.int64)
    itemsize = np.dtype(dtype).itemsize
    samples[:, 0] = _elements(src_offsets, volumes, itemsize)
    samples[:, 1] = _elements(dst_offsets, volumes, itemsize)
    samples[:, 2:5] = shapes
    samples[:, 5] = np.asarray(sample_ids, np.int64).reshape(n)
    samples[:, 6] = np.asarray(masks).reshape(n) != 0
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(kernel, (blocks, max(n, 1), 1), (BLOCK, 1, 1), samples)


def _elements(offsets, volumes, itemsize):
    """Element offsets of the samples: `offsets` in bytes, or packed when None."""
    if offsets is None:
        return np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64)
    offsets = np.asarray(offsets, np.int64)
    if np.any(offsets % itemsize):
        raise ValueError("sample offsets must be multiples of the element size")
    return offsets // itemsize
