"""Host side of fn.flip's CUDA kernel (`flip.cu`): the per-sample descriptors and the launch
configuration, built from what the CPU path has (the plan's layout, the per-sample flags and
the batch's shapes and byte offsets).  Not wired to an executor yet (docs/gpu.md).

A launch is `kernel(grid, block, (src, dst, samples))` with the kernel `kernel_name(itemsize)`
of `flip.cu`, `src`/`dst` the batches' buffers and `samples` the descriptor array on the device.
"""

from __future__ import annotations

import typing

import numpy as np

DIMS = 6                        # DALI_FLIP_DIMS of flip.cu
FIELDS = 4 + 2 * DIMS           # int64 fields of a FlipSample
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
_AXES = (("horizontal", "W"), ("vertical", "H"), ("depthwise", "D"))


class Launch(typing.NamedTuple):
    kernel: str                 # the kernel's name in flip.cu
    grid: tuple
    block: tuple
    samples: np.ndarray         # (n, FIELDS) int64: the FlipSample array


def kernel_name(itemsize):
    if itemsize not in (1, 2, 4, 8):
        raise ValueError(f"flip.cu has no kernel for {itemsize}-byte elements")
    return f"flip_{itemsize}"


def axis_flags(layout, horizontal, vertical, depthwise):
    """(n, ndim) uint8 flags: which axes of `layout` each sample flips (as `Flip.run_cpu`)."""
    values = {"horizontal": horizontal, "vertical": vertical, "depthwise": depthwise}
    n = len(np.atleast_1d(horizontal))
    flags = np.zeros((n, len(layout)), dtype=np.uint8)
    for name, axis in _AXES:
        d = layout.find(axis)
        if d >= 0:
            flags[:, d] = np.asarray(values[name]) != 0
    return flags


def launch(shapes, flags, itemsize, src_offsets=None, dst_offsets=None):
    """The `Launch` of a batch of `shapes` flipped along `flags` (see `axis_flags`), with
    elements of `itemsize` bytes; offsets are the samples' byte offsets in the input and
    output buffers (None: the samples packed one after another)."""
    n = len(shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a flip launch takes at most {MAX_SAMPLES} samples, not {n}")
    volumes = np.array([int(np.prod(s, dtype=np.int64)) for s in shapes], np.int64)
    packed = np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64) * itemsize
    src_offsets = packed if src_offsets is None else np.asarray(src_offsets, np.int64)
    dst_offsets = packed if dst_offsets is None else np.asarray(dst_offsets, np.int64)
    if np.any(src_offsets % itemsize) or np.any(dst_offsets % itemsize):
        raise ValueError("sample offsets must be multiples of the element size")
    samples = np.zeros((n, FIELDS), np.int64)
    for i, shape in enumerate(shapes):
        samples[i] = _describe(shape, flags[i], src_offsets[i] // itemsize,
                               dst_offsets[i] // itemsize)
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(kernel_name(itemsize), (blocks, n, 1), (BLOCK, 1, 1), samples)


def _describe(shape, flags, src_offset, dst_offset):
    """One FlipSample row: axes of extent 1 dropped, neighbours flipped alike merged (the
    sample is C-contiguous, so a merged pair is one axis of their product)."""
    extents, flipped = [], []
    for e, f in zip(shape, flags, strict=True):
        if e == 1:
            continue
        if extents and flipped[-1] == bool(f):
            extents[-1] *= e
        else:
            extents.append(int(e))
            flipped.append(bool(f))
    if len(extents) > DIMS:
        raise ValueError(f"a flip sample collapses to {len(extents)} axes, flip.cu takes {DIMS}")
    row = np.zeros(FIELDS, np.int64)
    stride, offset = 1, src_offset
    for d in range(len(extents) - 1, -1, -1):
        row[4 + DIMS + d] = -stride if flipped[d] else stride
        if flipped[d]:
            offset += (extents[d] - 1) * stride
        row[4 + d] = extents[d]
        stride *= extents[d]
    row[:4] = offset, dst_offset, int(np.prod(shape, dtype=np.int64)), len(extents)
    return row
