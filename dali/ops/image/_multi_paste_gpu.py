"""Host side of fn.multi_paste's CUDA kernels (`multi_paste.cu`): the per-sample and
per-region descriptors and the launch configuration, from the plan's region table (rows of
(input, source sample, in_y, in_x, out_y, out_x, height, width), `starts` giving each output
sample's rows) and the batches' shapes and byte offsets.

A launch is `kernel(grid, block, (srcs, dst, samples, regions))`: `srcs` the input batches'
device addresses (uint64), `dst` the output batch, `samples` and `regions` the descriptor
arrays.
"""

from __future__ import annotations

import typing

import numpy as np

SAMPLE_FIELDS = 6               # int64 fields of a PasteSample
REGION_FIELDS = 7               # int64 fields of a PasteRegion
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (max(n, 1), SAMPLE_FIELDS) int64
    regions: np.ndarray         # (max(m, 1), REGION_FIELDS) int64


def kernel_name(itemsize):
    if itemsize not in (1, 2, 4, 8):
        raise ValueError(f"multi_paste.cu has no kernel for {itemsize}-byte elements")
    return f"multi_paste_{itemsize}"


def launch(table, starts, out_shapes, src_shapes, src_offsets, itemsize, dst_offsets):
    """The `Launch` pasting the regions `table` (see the module) into the output samples of
    (H, W, C) `out_shapes`; `src_shapes[k]` / `src_offsets[k]` are input batch k's shapes and
    byte offsets, `dst_offsets` the output's."""
    kernel = kernel_name(itemsize)
    out_shapes = np.asarray(out_shapes, np.int64).reshape(-1, 3)
    n = len(out_shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a multi_paste launch takes at most {MAX_SAMPLES} samples, not {n}")
    table = np.asarray(table, np.int64).reshape(-1, 8)
    starts = np.asarray(starts, np.int64)
    m = len(table)
    if starts.shape != (n + 1,) or starts[0] != 0 or starts[n] != m or \
            (np.diff(starts) < 0).any():
        raise ValueError(f"starts must rise from 0 to {m} in {n + 1} values")
    owner = np.repeat(np.arange(n), np.diff(starts))
    regions = np.zeros((max(m, 1), REGION_FIELDS), np.int64)
    for k, (shapes, offsets) in enumerate(zip(src_shapes, src_offsets, strict=True)):
        mine = np.flatnonzero(table[:, 0] == k)
        if not len(mine):
            continue
        rows = table[mine]
        shapes = np.asarray(shapes, np.int64).reshape(-1, 3)
        if (rows[:, 1] < 0).any() or (rows[:, 1] >= len(shapes)).any():
            raise ValueError("region source sample out of range")
        shape = shapes[rows[:, 1]]
        offsets = np.asarray(offsets, np.int64)[rows[:, 1]]
        if (offsets % itemsize).any():
            raise ValueError("sample offsets must be multiples of the element size")
        if ((shape[:, 2] != out_shapes[owner[mine], 2]).any() or (rows[:, 2:4] < 0).any() or
                (rows[:, 6:8] < 0).any() or (rows[:, 2:4] + rows[:, 6:8] > shape[:, :2]).any()):
            raise ValueError("regions must lie inside their source samples, with the output's "
                             "channels")
        regions[mine, 0] = k
        regions[mine, 2] = shape[:, 1] * shape[:, 2]
        regions[mine, 1] = offsets // itemsize + rows[:, 2] * regions[mine, 2] + \
            rows[:, 3] * shape[:, 2]
        regions[mine, 3:7] = rows[:, 4:8]
    if m and ((table[:, 0] < 0).any() or (table[:, 0] >= len(src_shapes)).any()):
        raise ValueError("region input out of range")
    if m and ((table[:, 4:6] < 0).any() or
              (table[:, 4:6] + table[:, 6:8] > out_shapes[owner, :2]).any()):
        raise ValueError("regions must lie inside their output samples")
    dst_offsets = np.asarray(dst_offsets, np.int64)
    if (dst_offsets % itemsize).any():
        raise ValueError("sample offsets must be multiples of the element size")
    samples = np.zeros((max(n, 1), SAMPLE_FIELDS), np.int64)
    samples[:n, 0] = dst_offsets // itemsize
    samples[:n, 1:4] = out_shapes
    samples[:n, 4] = starts[:-1]
    samples[:n, 5] = np.diff(starts)
    volumes = np.prod(out_shapes, axis=1)
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(kernel, (blocks, n, 1), (BLOCK, 1, 1), samples, regions)
