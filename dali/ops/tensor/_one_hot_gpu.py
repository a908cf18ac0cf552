"""Host side of fn.one_hot's CUDA kernels (`one_hot.cu`): the per-sample descriptors and the
launch configuration, from the plan's `outer` and `inner` (rows and row length of every
sample's indices) and the operator's on/off bit patterns.

A launch is `kernel(grid, block, (src, dst, samples, numpy.int64(classes),
numpy.uint64(on), numpy.uint64(off)))`.
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 4                      # int64 fields of a OneHotSample
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
_CODES = {np.dtype(t): c for t, c in (
    (np.int8, "i8"), (np.uint8, "u8"), (np.int16, "i16"), (np.uint16, "u16"),
    (np.int32, "i32"), (np.uint32, "u32"), (np.int64, "i64"), (np.uint64, "u64"),
    (np.float32, "f32"), (np.float64, "f64"))}


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (n, FIELDS) int64: the OneHotSample array
    classes: np.int64
    on: np.uint64
    off: np.uint64


def kernel_name(src_dtype, out_itemsize):
    code = _CODES.get(np.dtype(src_dtype))
    if code is None or out_itemsize not in (1, 2, 4, 8):
        raise ValueError(f"one_hot.cu has no kernel from {np.dtype(src_dtype)} to "
                         f"{out_itemsize}-byte elements")
    return f"one_hot_{code}_{out_itemsize}"


def launch(outer, inner, classes, on, off, src_dtype, out_itemsize, src_offsets=None,
           dst_offsets=None):
    """The `Launch` of a batch whose sample i is outer[i] rows of inner[i] indices of
    `src_dtype`, encoded over `classes` classes into elements of `out_itemsize` bytes with the
    bit patterns `on` and `off`; offsets are the samples' byte offsets (None: packed)."""
    outer = np.asarray(outer, np.int64).reshape(-1)
    inner = np.asarray(inner, np.int64).reshape(-1)
    n = len(outer)
    if n > MAX_SAMPLES:
        raise ValueError(f"a one_hot launch takes at most {MAX_SAMPLES} samples, not {n}")
    if inner.shape != (n,) or classes < 0:
        raise ValueError("outer and inner need one value per sample, classes >= 0")
    name = kernel_name(src_dtype, out_itemsize)
    samples = np.zeros((n, FIELDS), np.int64)
    samples[:, 0] = _elements(src_offsets, outer * inner, np.dtype(src_dtype).itemsize)
    samples[:, 1] = _elements(dst_offsets, outer * classes * inner, out_itemsize)
    samples[:, 2], samples[:, 3] = outer, inner
    volumes = outer * classes * inner
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(name, (blocks, max(n, 1), 1), (BLOCK, 1, 1), samples, np.int64(classes),
                  np.uint64(on), np.uint64(off))


def _elements(offsets, volumes, itemsize):
    """Element offsets of the samples: `offsets` in bytes, or packed when None."""
    if offsets is None:
        return np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64)
    offsets = np.asarray(offsets, np.int64)
    if np.any(offsets % itemsize):
        raise ValueError("sample offsets must be multiples of the element size")
    return offsets // itemsize
