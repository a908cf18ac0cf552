"""Host side of fn.equalize's CUDA kernels (`equalize.cu`): the per-sample descriptors and the
two launches (the tables of every plane and channel, then the mapping), as a
`dali.ops._gpu_program.Program` with one scratch buffer, "luts" (256 bytes per table).
"""

from __future__ import annotations

import numpy as np

from dali.ops import _gpu_program

FIELDS = 6                      # int64 fields of an EqualizeSample
BLOCK = 256
LUT_BLOCK = 64                  # threads per block of the table pass (few, long threads)
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
CU = __file__


def program(planes, pixels, channels, src_offsets, dst_offsets):
    """The `Program` equalising samples of `planes` planes of `pixels` pixels with `channels`
    interleaved channels each (arrays of one value per sample), at the given byte offsets."""
    planes, pixels, channels = (np.asarray(v, np.int64).reshape(-1) for v in
                                (planes, pixels, channels))
    n = len(planes)
    if n > MAX_SAMPLES:
        raise ValueError(f"an equalize launch takes at most {MAX_SAMPLES} samples, not {n}")
    if len(pixels) != n or len(channels) != n or (planes < 0).any() or (pixels < 0).any() or \
            (channels < 1).any():
        raise ValueError("planes, pixels and channels need one valid value per sample")
    units = planes * channels
    samples = np.zeros((max(n, 1), FIELDS), np.int64)
    samples[:n, 0] = np.asarray(src_offsets, np.int64).reshape(n)
    samples[:n, 1] = np.asarray(dst_offsets, np.int64).reshape(n)
    samples[:n, 2], samples[:n, 3], samples[:n, 4] = planes, pixels, channels
    samples[:n, 5] = np.cumsum(units) - units
    volumes = units * pixels
    lut_blocks = int(min(max(-(-int(units.max(initial=0)) // LUT_BLOCK), 1), MAX_BLOCKS_X))
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return _gpu_program.Program(
        [_gpu_program.Launch(CU, "equalize_luts", (lut_blocks, n, 1), (LUT_BLOCK, 1, 1),
                             ("src", "luts", samples)),
         _gpu_program.Launch(CU, "equalize_map", (blocks, n, 1), (BLOCK, 1, 1),
                             ("src", "dst", "luts", samples))],
        {"luts": 256 * max(int(units.sum()), 1)})
