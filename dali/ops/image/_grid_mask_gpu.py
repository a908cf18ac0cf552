"""Host side of fn.grid_mask's CUDA kernels (`grid_mask.cu`): the per-sample descriptors and
the launch configuration, from the batch's shapes and byte offsets and the samples' grid
constants (`dali._ext.kernels.grid_mask.grid_geometry`).

A launch is `kernel(grid, block, (src, dst, samples, geometry))`, `geometry` the (n, 5)
float32 constants.
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 5                      # int64 fields of a GridMaskSample
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (max(n, 1), FIELDS) int64: the GridMaskSample array
    geometry: np.ndarray        # (max(n, 1), 5) float32


def kernel_name(itemsize):
    if itemsize not in (1, 2, 4):
        raise ValueError(f"grid_mask.cu has no kernel for {itemsize}-byte elements")
    return f"grid_mask_{itemsize}"


def launch(shapes, geometry, itemsize, src_offsets, dst_offsets):
    """The `Launch` masking (H, W, C) `shapes` of `itemsize`-byte elements with the (n, 5)
    `geometry`; offsets are the samples' byte offsets."""
    kernel = kernel_name(itemsize)
    shapes = np.asarray(shapes, np.int64).reshape(-1, 3)
    n = len(shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a grid_mask launch takes at most {MAX_SAMPLES} samples, not {n}")
    geometry = np.asarray(geometry, np.float32)
    if geometry.shape != (n, 5):
        raise ValueError(f"grid_mask needs (n, 5) grid constants, got {geometry.shape}")
    offsets = np.stack([np.asarray(src_offsets, np.int64).reshape(n),
                        np.asarray(dst_offsets, np.int64).reshape(n)], axis=1)
    if (offsets % itemsize).any():
        raise ValueError("sample offsets must be multiples of the element size")
    samples = np.zeros((max(n, 1), FIELDS), np.int64)
    samples[:n, :2] = offsets // itemsize
    samples[:n, 2:] = shapes
    volumes = np.prod(shapes, axis=1)
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    padded = np.zeros((max(n, 1), 5), np.float32)
    padded[:n] = geometry
    return Launch(kernel, (blocks, n, 1), (BLOCK, 1, 1), samples, padded)
