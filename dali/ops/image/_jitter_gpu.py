"""Host side of the displacement CUDA kernels (`jitter.cu`) of fn.jitter, fn.water and
fn.sphere: the per-sample descriptors and the launch configuration, from the batch's shapes,
the plan's masks and, for jitter, the samples' ids (the counters of their random streams) or,
for water, where each sample's wave terms start.

A jitter launch is `kernel(grid, block, (src, dst, samples, numpy.uint64(key),
numpy.uint32(stream), numpy.int32(degree), numpy.int32(linear), numpy.float32(fill)))`, `key`
being the operator's Philox key of the iteration (`ws.random_key()`); a water or sphere launch
is `kernel(grid, block, (src, dst, samples, waves, numpy.int32(linear), numpy.float32(fill)))`,
`waves` the float32 wave terms of `dali._ext.kernels.displace.water_waves` (any float32 array
for sphere).
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 7                      # int64 fields of a JitterSample
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
_TYPES = {np.dtype(np.uint8): "u8", np.dtype(np.float32): "f32"}
MODES = ("jitter", "water", "sphere")


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (max(n, 1), FIELDS) int64: the JitterSample array


def launch(shapes, masks, sample_ids, dtype, src_offsets=None, dst_offsets=None,
           mode="jitter"):
    """The `Launch` of `mode` over a batch of (H, W, C) `shapes` of `dtype` (uint8 or float32);
    samples whose mask is 0 are copied.  `sample_ids`: jitter's stream counters (water: None,
    its wave offsets are taken; sphere: None).  Offsets are the samples' byte offsets (None:
    packed)."""
    if mode not in MODES:
        raise ValueError(f"jitter.cu has no {mode!r} displacement")
    if np.dtype(dtype) not in _TYPES:
        raise ValueError(f"jitter.cu has no kernel for {np.dtype(dtype)}")
    kernel = f"{mode}_{_TYPES[np.dtype(dtype)]}"
    shapes = np.asarray(shapes, np.int64)
    n = len(shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a {mode} launch takes at most {MAX_SAMPLES} samples, not {n}")
    if shapes.size and (shapes.ndim != 2 or shapes.shape[1] != 3):
        raise ValueError("jitter.cu takes (H, W, C) samples")
    shapes = shapes.reshape(n, 3)
    volumes = np.prod(shapes, axis=1)
    samples = np.zeros((max(n, 1), FIELDS), np.int64)     # a zero row for an empty batch
    itemsize = np.dtype(dtype).itemsize
    samples[:n, 0] = _elements(src_offsets, volumes, itemsize)
    samples[:n, 1] = _elements(dst_offsets, volumes, itemsize)
    samples[:n, 2:5] = shapes
    if mode == "jitter":
        samples[:n, 5] = np.asarray(sample_ids, np.int64).reshape(n)
    elif mode == "water":
        terms = shapes[:, 0] + shapes[:, 1]
        samples[:n, 5] = np.cumsum(terms) - terms
    samples[:n, 6] = np.asarray(masks).reshape(n) != 0
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(kernel, (blocks, n, 1), (BLOCK, 1, 1), samples)


def _elements(offsets, volumes, itemsize):
    """Element offsets of the samples: `offsets` in bytes, or packed when None."""
    if offsets is None:
        return np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64)
    offsets = np.asarray(offsets, np.int64)
    if np.any(offsets % itemsize):
        raise ValueError("sample offsets must be multiples of the element size")
    return offsets // itemsize
