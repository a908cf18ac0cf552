"""Host side of the sample-copy kernels (`copy_samples.cu`): the byte ranges and the launch of
`_conditional.split`, `_conditional.merge`, fn.permute_batch or any gather of whole samples,
from the samples' sizes and byte offsets.  Pure numpy.

A launch is `copy_<unit>(grid, block, (src0, src1, dst0, dst1, ranges))` with `ranges` (the
CopyRange array) on the device; an operator with one source or one destination passes the same
buffer twice.  None: nothing to copy (every range empty).
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 5                      # int64 fields of a CopyRange
BLOCK = 256
MAX_BLOCKS_X = 1024
MAX_RANGES = 65535              # gridDim.y
UNITS = (16, 8, 4, 2, 1)


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    ranges: np.ndarray          # (k, FIELDS) int64: the CopyRange array, in units
    unit: int                   # bytes


def alignment(*ptrs):
    """The largest unit (up to 16 bytes) dividing every address in `ptrs` (the buffers' base
    addresses; CuPy's pool gives 256-byte aligned blocks, other producers may not)."""
    return int(np.gcd.reduce(np.array([UNITS[0], *ptrs], np.uint64))) if ptrs else UNITS[0]


def _packed(sizes):
    sizes = np.asarray(sizes, np.int64)
    return np.cumsum(sizes) - sizes


def copies(src, src_offsets, dst, dst_offsets, sizes, base_align=16):
    """The `Launch` copying range j: `sizes[j]` bytes from source buffer `src[j]` (0 or 1) at
    byte offset `src_offsets[j]` to destination buffer `dst[j]` at `dst_offsets[j]`; the
    buffers' base addresses are multiples of `base_align` bytes."""
    table = np.stack(np.broadcast_arrays(*(np.asarray(v, np.int64).reshape(-1) for v in (
        src, src_offsets, dst, dst_offsets, sizes))), axis=1)
    if ((table[:, [0, 2]] != 0) & (table[:, [0, 2]] != 1)).any():
        raise ValueError("the source and destination buffers are 0 or 1")
    if (table[:, [1, 3, 4]] < 0).any():
        raise ValueError("negative offsets or sizes")
    table = table[table[:, 4] > 0]
    if len(table) == 0:
        return None
    if len(table) > MAX_RANGES:
        raise ValueError(f"a copy launch takes at most {MAX_RANGES} ranges, not {len(table)}")
    common = int(np.gcd.reduce(np.append(table[:, [1, 3, 4]].reshape(-1), base_align)))
    unit = next(u for u in UNITS if common % u == 0)
    ranges = table.copy()
    ranges[:, [1, 3, 4]] //= unit
    blocks = int(min(max(-(-int(ranges[:, 4].max()) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(f"copy_{unit}", (blocks, len(ranges), 1), (BLOCK, 1, 1),
                  np.ascontiguousarray(ranges), unit)


def split(sizes, src_offsets, mask, true_offsets=None, false_offsets=None, base_align=16):
    """`_conditional.split`: the samples (`sizes` bytes at `src_offsets`) where `mask` is true
    to destination 0, the others to destination 1, in order (offsets None: packed)."""
    sizes = np.asarray(sizes, np.int64)
    mask = np.asarray(mask, bool)
    t, f = np.flatnonzero(mask), np.flatnonzero(~mask)
    dst_offsets = np.empty(len(sizes), np.int64)
    dst_offsets[t] = _packed(sizes[t]) if true_offsets is None else true_offsets
    dst_offsets[f] = _packed(sizes[f]) if false_offsets is None else false_offsets
    return copies(0, src_offsets, (~mask).astype(np.int64), dst_offsets, sizes, base_align)


def merge(true_sizes, true_offsets, false_sizes, false_offsets, mask, dst_offsets=None,
          base_align=16):
    """`_conditional.merge`: output sample i is the next sample of source 0 (the true branch)
    where `mask[i]`, else the next of source 1."""
    mask = np.asarray(mask, bool)
    sizes = np.empty(len(mask), np.int64)
    src_offsets = np.empty(len(mask), np.int64)
    for side, s, o in ((mask, true_sizes, true_offsets), (~mask, false_sizes, false_offsets)):
        if int(side.sum()) != len(np.asarray(s).reshape(-1)):
            raise ValueError("the mask selects as many samples as each source has")
        sizes[side], src_offsets[side] = s, o
    return copies((~mask).astype(np.int64), src_offsets, 0,
                  _packed(sizes) if dst_offsets is None else dst_offsets, sizes, base_align)


def gather(sizes, src_offsets, indices, dst_offsets=None, base_align=16):
    """fn.permute_batch: output sample j is input sample `indices[j]`."""
    indices = np.asarray(indices, np.int64)
    sizes = np.asarray(sizes, np.int64)
    if ((indices < 0) | (indices >= len(sizes))).any():
        raise ValueError("sample index out of range")
    picked = sizes[indices]
    return copies(0, np.asarray(src_offsets, np.int64)[indices], 0,
                  _packed(picked) if dst_offsets is None else dst_offsets, picked, base_align)
