"""Host side of fn.bb_flip's CUDA kernel (`boxes.cu`): the per-sample descriptors and the launch,
built from the CPU path's plan (`size`: 4 or 6 floats a box, `counts`: boxes per sample), the
per-sample flags and the batches' byte offsets.  Pure numpy.

A launch is `bb_flip(grid, block, (src, dst, samples, numpy.int32(size), numpy.int32(ltrb)))`
with `samples` (the BoxSample array) on the device.
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 5                      # int64 fields of a BoxSample
BLOCK = 128
MAX_BLOCKS_X = 1024
MAX_SAMPLES = 65535             # gridDim.y


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (n, FIELDS) int64
    size: np.int32
    ltrb: np.int32


def packed_offsets(counts, size):
    """Byte offsets of samples of `counts` boxes of `size` floats lying back to back."""
    bytes_ = np.asarray(counts, np.int64) * size * 4
    return np.cumsum(bytes_) - bytes_


def bb_flip(size, counts, horizontal, vertical, ltrb, src_offsets=None, dst_offsets=None):
    """The `Launch` of a batch: `counts` boxes of `size` (4 or 6) floats per sample, per-sample
    flags `horizontal` and `vertical`, samples at byte offsets (None: packed); None when the
    batch has no samples (nothing to launch)."""
    counts = np.asarray(counts, np.int64).reshape(-1)
    n = len(counts)
    if size not in (4, 6):
        raise ValueError(f"a box has 4 or 6 coordinates, not {size}")
    if n > MAX_SAMPLES:
        raise ValueError(f"a bb_flip launch takes at most {MAX_SAMPLES} samples, not {n}")
    if n == 0:
        return None
    packed = packed_offsets(counts, size)
    offsets = []
    for given in (src_offsets, dst_offsets):
        given = packed if given is None else np.asarray(given, np.int64).reshape(-1)
        if given.shape != (n,) or (given % 4).any():
            raise ValueError("sample offsets must be one per sample, multiples of 4 bytes")
        offsets.append(given // 4)
    samples = np.empty((n, FIELDS), np.int64)
    samples[:, 0], samples[:, 1], samples[:, 2] = offsets[0], offsets[1], counts
    samples[:, 3] = np.broadcast_to(np.asarray(horizontal) != 0, (n,))
    samples[:, 4] = np.broadcast_to(np.asarray(vertical) != 0, (n,))
    blocks = int(min(max(-(-int(counts.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch("bb_flip", (blocks, n, 1), (BLOCK, 1, 1), samples, np.int32(size),
                  np.int32(bool(ltrb)))
