"""Host side of fn.erase's CUDA kernels (`erase.cu`): the per-sample descriptors, the boxes
and fill values as the kernels read them, and the launch configuration, built from the plan
`Erase.infer` makes (`boxes` (m, 2, ndim), `starts`, `fill` (n, k), `channel`) and the
batch's shapes and byte offsets.

A launch is `kernel(grid, block, (src, dst, samples, boxes, fill))` with the kernel
`Launch.kernel` of `erase.cu`, `src`/`dst` the batches' buffers and the three arrays on the
device.
"""

from __future__ import annotations

import typing

import numpy as np

DIMS = 8                        # DALI_ERASE_DIMS of erase.cu
FIELDS = 8 + DIMS               # int64 fields of an EraseSample
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y


class Launch(typing.NamedTuple):
    kernel: str                 # the kernel's name in erase.cu
    grid: tuple
    block: tuple
    samples: np.ndarray         # (max(n, 1), FIELDS) int64: the EraseSample array
    boxes: np.ndarray           # (max(m, 1), 2, DIMS) int64
    fill: np.ndarray            # flat fill values as unsigned integers of the element size


def launch(shapes, dtype, boxes, starts, fill, channel_axis=-1, src_offsets=None,
           dst_offsets=None):
    """The `Launch` of a batch of `shapes` whose sample i has the boxes starts[i] to
    starts[i + 1] of `boxes` ((m, 2, ndim): first and end indices) set to `fill[i]` (one
    value, or one per index of `channel_axis`); offsets in bytes (None: packed)."""
    dtype = np.dtype(dtype)
    if dtype.itemsize not in (1, 2, 4, 8):
        raise ValueError(f"erase.cu has no kernel for {dtype.itemsize}-byte elements")
    n = len(shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"an erase launch takes at most {MAX_SAMPLES} samples, not {n}")
    shape = np.asarray(shapes, np.int64).reshape(n, -1)
    ndim = shape.shape[1]
    if not 1 <= ndim <= DIMS:
        raise ValueError(f"erase.cu takes samples of 1 to {DIMS} dimensions, not {ndim}")
    boxes = np.asarray(boxes, np.int64).reshape(-1, 2, ndim)
    starts = np.asarray(starts, np.int64)
    fill = np.asarray(fill, dtype).reshape(n, -1)
    k = fill.shape[1] if n else 1
    if k > 1 and n and (not 0 <= channel_axis < ndim or (shape[:, channel_axis] != k).any()):
        raise ValueError("per-channel fill values need a channel axis with as many channels "
                         "in every sample")
    size = dtype.itemsize
    volumes = np.prod(shape, axis=1, dtype=np.int64)
    packed = np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64) * size
    src_offsets = packed if src_offsets is None else np.asarray(src_offsets, np.int64)
    dst_offsets = packed if dst_offsets is None else np.asarray(dst_offsets, np.int64)
    if np.any(src_offsets % size) or np.any(dst_offsets % size):
        raise ValueError("sample offsets must be multiples of the element size")
    samples = np.zeros((max(n, 1), FIELDS), np.int64)
    samples[:n, 0] = src_offsets // size
    samples[:n, 1] = dst_offsets // size
    samples[:n, 2] = volumes
    samples[:n, 3] = ndim
    samples[:n, 4] = channel_axis if k > 1 else -1
    samples[:n, 5] = np.arange(n) * k
    samples[:n, 6] = starts[:n]
    samples[:n, 7] = starts[1:n + 1] - starts[:n]
    samples[:n, 8:8 + ndim] = shape
    table = np.zeros((max(len(boxes), 1), 2, DIMS), np.int64)
    table[:len(boxes), :, :ndim] = boxes
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(f"erase_{size}", (blocks, max(n, 1), 1), (BLOCK, 1, 1), samples, table,
                  np.ascontiguousarray(fill).reshape(-1).view(f"u{size}"))


def for_erase(ws, plan, src_offsets=None, dst_offsets=None):
    """fn.erase's launch: `plan` of `Erase.infer`."""
    src = ws.input_storage(0)
    return launch(src.shapes, src.dtype, plan.boxes, plan.starts, plan.fill, plan.channel,
                  src_offsets, dst_offsets)
