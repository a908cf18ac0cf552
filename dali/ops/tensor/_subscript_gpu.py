"""Host side of `x[...]`'s CUDA kernels (`subscript.cu`): per-sample descriptors of the strided
views that `TensorSubscript.infer` plans (one tuple of integer indices and slices per sample),
from the input's shapes and both batches' byte offsets.

A launch is `subscript_<bytes>(grid, block, (src, dst, samples))`.
"""

from __future__ import annotations

import typing

import numpy as np

DIMS = 8                        # DALI_SUBSCRIPT_DIMS of subscript.cu
FIELDS = 5 + 2 * DIMS           # int64 fields of a SubscriptSample
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (max(n, 1), FIELDS) int64: the SubscriptSample array


def launch(in_shapes, indices, itemsize, src_offsets=None, dst_offsets=None):
    """The `Launch` copying view `indices[i]` (a tuple of ints, already non-negative, and
    slices over the leading axes) of every input sample of `in_shapes`; offsets are the
    samples' byte offsets (None: packed)."""
    if itemsize not in (1, 2, 4, 8):
        raise ValueError(f"subscript.cu has no kernel for {itemsize}-byte elements")
    n = len(in_shapes)
    if len(indices) != n:
        raise ValueError(f"{len(indices)} index tuples for {n} samples")
    if n > MAX_SAMPLES:
        raise ValueError(f"a subscript launch takes at most {MAX_SAMPLES} samples, not {n}")
    samples = np.zeros((max(n, 1), FIELDS), np.int64)
    for i in range(n):
        samples[i] = _describe(tuple(int(e) for e in in_shapes[i]), indices[i])
    in_volumes = np.array([int(np.prod(s, dtype=np.int64)) for s in in_shapes], np.int64)
    samples[:n, 0] = _elements(src_offsets, in_volumes, itemsize)
    samples[:n, 1] = _elements(dst_offsets, samples[:n, 2], itemsize)
    blocks = int(min(max(-(-int(samples[:, 2].max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(f"subscript_{itemsize}", (blocks, max(n, 1), 1), (BLOCK, 1, 1), samples)


def _describe(shape, index):
    """One SubscriptSample row but the offsets: the view's base, extents and strides (in
    source elements), contiguous neighbours merged and extent-1 axes dropped."""
    if len(index) > len(shape):
        raise ValueError(f"{len(index)} indices for a {len(shape)}-D sample")
    stride = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        stride[d] = stride[d + 1] * shape[d + 1]
    base, axes = 0, []          # [extent, stride]
    for d, extent in enumerate(shape):
        ix = index[d] if d < len(index) else slice(None)
        if not isinstance(ix, slice):
            if not 0 <= ix < extent:
                raise ValueError(f"index {ix} out of range for an axis of extent {extent}")
            base += ix * stride[d]
            continue
        start, _, step = ix.indices(extent)
        kept = len(range(*ix.indices(extent)))
        if kept:
            base += start * stride[d]
        axes.append([kept, step * stride[d]])
    volume = int(np.prod([e for e, _ in axes], dtype=np.int64))
    merged = []
    for e, st in axes:
        if volume and e == 1:
            continue
        if merged and merged[-1][1] == st * e:
            merged[-1] = [merged[-1][0] * e, st]
        else:
            merged.append([e, st])
    if volume == 0:
        merged, base = [], 0
    if len(merged) > DIMS:
        raise ValueError(f"a subscript view collapses to {len(merged)} axes, subscript.cu "
                         f"takes {DIMS}")
    row = np.zeros(FIELDS, np.int64)
    row[2:5] = volume, len(merged), base
    for k, (e, st) in enumerate(merged):
        row[5 + k], row[5 + DIMS + k] = e, st
    return row


def _elements(offsets, volumes, itemsize):
    """Element offsets of the samples: `offsets` in bytes, or packed when None."""
    if offsets is None:
        return np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64)
    offsets = np.asarray(offsets, np.int64)[:len(volumes)]
    if np.any(offsets % itemsize):
        raise ValueError("sample offsets must be multiples of the element size")
    return offsets // itemsize
