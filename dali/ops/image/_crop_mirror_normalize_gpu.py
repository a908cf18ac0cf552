"""Host side of fn.crop_mirror_normalize's CUDA kernels (`crop_mirror_normalize.cu`): the
per-sample descriptors and the launch configuration, from what the CPU path's plan holds (the
input layout, the output permutation, the windows' anchors and extents) and the per-sample
mirror flags, (mean, mul) pairs and fill values the CPU path computes.  Not wired to an
executor yet (docs/gpu.md).

A launch is `kernel(grid, block, (src, dst, samples, mean, mul, fill, numpy.int32(row)))`
with the arrays of `Launch` on the device.
"""

from __future__ import annotations

import typing

import numpy as np

DIMS = 6                        # DALI_CMN_DIMS of crop_mirror_normalize.cu
FIELDS = 6 + 5 * DIMS           # int64 fields of a CmnSample
BLOCK = 256
MAX_BLOCKS_X = 1024
MAX_SAMPLES = 65535
_CODES = {np.dtype(t): c for t, c in (
    (np.uint8, "u8"), (np.int8, "i8"), (np.int16, "i16"), (np.uint16, "u16"), (np.int32, "i32"),
    (np.float16, "f16"), (np.float32, "f32"))}
_INPUTS = ("u8", "i16", "u16", "i32", "f16", "f32")
_OUTPUTS = ("u8", "i8", "f16", "f32")


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (n, FIELDS) int64: the CmnSample array
    mean: np.ndarray            # (n, row) float32
    mul: np.ndarray
    fill: np.ndarray
    row: int


def kernel_name(in_dtype, out_dtype):
    src, dst = _CODES.get(np.dtype(in_dtype)), _CODES.get(np.dtype(out_dtype))
    if src not in _INPUTS or dst not in _OUTPUTS:
        raise ValueError(f"crop_mirror_normalize.cu has no kernel from {np.dtype(in_dtype)} "
                         f"to {np.dtype(out_dtype)}")
    return f"cmn_{src}_{dst}"


def launch(in_shapes, out_shapes, layout, perm, anchors, extents, mirror, mean, mul, fill,
           in_dtype, out_dtype, src_offsets=None, dst_offsets=None):
    """The `Launch` of a batch.

    in_shapes, anchors, extents : (n, ndim) in the input layout `layout` (the plan's windows)
    out_shapes : the output shapes (the plan's `geometry.shapes`: channels padded or not)
    perm : output axis j is input axis perm[j] (the plan's `perm`)
    mirror : per-sample flags (mirror along W)
    mean, mul : per sample, the float32 rows of `CropMirrorNormalize._normalization`
    fill : per sample, the values of padded areas and channels (`_crop_window.fill_array`), or
        None for zeros (no "pad" policy)
    offsets : the samples' byte offsets in the input and output buffers (None: packed)
    """
    n = len(in_shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a crop_mirror_normalize launch takes at most {MAX_SAMPLES} samples")
    channel, w_axis = layout.index("C"), layout.index("W")
    in_shapes = np.asarray(in_shapes, np.int64).reshape(n, len(layout))
    anchors = np.asarray(anchors, np.int64).reshape(n, len(layout))
    extents = np.asarray(extents, np.int64).reshape(n, len(layout))
    padded = extents.copy()        # the window with the output's channel count
    padded[:, channel] = [s[perm.index(channel)] for s in out_shapes]
    row = int(padded[:, channel].max(initial=1))
    mean_rows, mul_rows, fill_rows = (np.zeros((n, row), np.float32) for _ in range(3))
    for i in range(n):
        c = int(extents[i, channel])
        mean_rows[i, :c], mul_rows[i, :c] = mean[i][:c], mul[i][:c]
        if fill is not None:
            fill_rows[i, :padded[i, channel]] = np.broadcast_to(
                np.asarray(fill[i], np.float32).reshape(-1), (padded[i, channel],))
    in_size, out_size = np.dtype(in_dtype).itemsize, np.dtype(out_dtype).itemsize
    volumes = np.prod(padded, axis=1)
    src_offsets = _elements(src_offsets, np.prod(in_shapes, axis=1), in_size)
    dst_offsets = _elements(dst_offsets, volumes, out_size)
    samples = np.zeros((n, FIELDS), np.int64)
    for i in range(n):
        strides = np.cumprod([1, *in_shapes[i, :0:-1]])[::-1]
        row_i = samples[i]
        row_i[:6] = (src_offsets[i], dst_offsets[i], volumes[i], len(perm),
                     perm.index(channel), extents[i, channel])
        for j, a in enumerate(perm):
            start, step = anchors[i, a], 1
            if a == w_axis and mirror[i]:
                start, step = anchors[i, a] + extents[i, a] - 1, -1
            row_i[6 + j::DIMS][:5] = (padded[i, a], start, step, in_shapes[i, a], strides[a])
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(kernel_name(in_dtype, out_dtype), (blocks, n, 1), (BLOCK, 1, 1),
                  samples, mean_rows, mul_rows, fill_rows, row)


def _elements(offsets, volumes, itemsize):
    if offsets is None:
        return np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64)
    offsets = np.asarray(offsets, np.int64)
    if np.any(offsets % itemsize):
        raise ValueError("sample offsets must be multiples of the element size")
    return offsets // itemsize

