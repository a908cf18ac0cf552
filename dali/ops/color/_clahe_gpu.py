"""Host side of fn.clahe's CUDA kernels (`clahe.cu`): the per-sample descriptors and the two
launches (the tables of every channel and tile, then the blend), as a
`dali.ops._gpu_program.Program` with one scratch buffer, "luts" (256 floats per table).
"""

from __future__ import annotations

import numpy as np

from dali.ops import _gpu_program

FIELDS = 6                      # int64 fields of a ClaheSample
BLOCK = 256
LUT_BLOCK = 32                  # threads per block of the table pass (few, long threads)
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
CU = __file__


def program(shapes, src_offsets, dst_offsets, tiles_x, tiles_y, clip_limit):
    """The `Program` equalising every channel of the (H, W, C) uint8 samples of `shapes` on
    its own, at the given byte offsets, with a grid of `tiles_x` x `tiles_y` tiles."""
    shapes = np.asarray(shapes, np.int64)
    n = len(shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a clahe launch takes at most {MAX_SAMPLES} samples, not {n}")
    if shapes.size and (shapes.ndim != 2 or shapes.shape[1] != 3):
        raise ValueError("clahe.cu takes (H, W, C) samples")
    if tiles_x < 1 or tiles_y < 1:
        raise ValueError(f"tiles must be positive, got {tiles_x} x {tiles_y}")
    shapes = shapes.reshape(n, 3)
    ntiles = tiles_x * tiles_y
    units = np.where(shapes[:, 0] * shapes[:, 1] > 0, shapes[:, 2] * ntiles, 0)
    samples = np.zeros((max(n, 1), FIELDS), np.int64)
    samples[:n, 0] = np.asarray(src_offsets, np.int64).reshape(n)
    samples[:n, 1] = np.asarray(dst_offsets, np.int64).reshape(n)
    samples[:n, 2:5] = shapes
    samples[:n, 5] = np.cumsum(units) - units
    volumes = np.prod(shapes, axis=1)
    lut_blocks = int(min(max(-(-int(units.max(initial=0)) // LUT_BLOCK), 1), MAX_BLOCKS_X))
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    tiles = (np.int32(tiles_x), np.int32(tiles_y))
    return _gpu_program.Program(
        [_gpu_program.Launch(CU, "clahe_luts", (lut_blocks, n, 1), (LUT_BLOCK, 1, 1),
                             ("src", "luts", samples, *tiles, np.float32(clip_limit))),
         _gpu_program.Launch(CU, "clahe_map", (blocks, n, 1), (BLOCK, 1, 1),
                             ("src", "dst", "luts", samples, *tiles))],
        {"luts": 4 * 256 * max(int(units.sum()), 1)})
