"""Host side of fn.coord_flip's and fn.coord_transform's CUDA kernels (`coords.cu`): the per-part
descriptors and the launches, built from the CPU path's plans, the per-sample arguments and the
batches' byte offsets.  Pure numpy.

Launches: `coord_flip(grid, block, (src, dst, parts, twice, numpy.int32(cols)))` and
`coord_transform_<in>_<out>(grid, block, (src, dst, parts, matrices, numpy.int32(rows),
numpy.int32(cols)))`, with the arrays of `Launch` on the device.  A batch with nothing to compute
has no launch (None).
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 4                      # int64 fields of a CoordPart
BLOCK = 128
MAX_BLOCKS_X = 1024
MAX_PARTS = 65535               # gridDim.y
_CODES = {np.dtype(t): c for t, c in ((np.uint8, "u8"), (np.int16, "i16"), (np.uint16, "u16"),
                                      (np.int32, "i32"), (np.float32, "f32"))}


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    parts: np.ndarray           # (parts, FIELDS) int64: the CoordPart array
    table: np.ndarray           # float32: coord_flip's (parts, 3) `twice`, or the matrices
    rows: np.int32              # coordinates of an output point
    cols: np.int32              # of an input point


def _offsets(given, volumes, itemsize, n):
    packed = (np.cumsum(volumes) - volumes) * itemsize
    given = packed if given is None else np.asarray(given, np.int64).reshape(-1)
    if given.shape != (n,) or (given % itemsize).any():
        raise ValueError("sample offsets must be one per sample, multiples of the element size")
    return given // itemsize


def _grid(parts, per_part):
    if len(parts) > MAX_PARTS:
        raise ValueError(f"a coordinate launch takes at most {MAX_PARTS} parts, not "
                         f"{len(parts)}")
    blocks = int(min(max(-(-int(per_part.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return (blocks, len(parts), 1), (BLOCK, 1, 1)


def coord_flip(points, cols, columns, flips, centers, src_offsets=None, dst_offsets=None):
    """The `Launch` of fn.coord_flip on samples of `points` points of `cols` (<= 3) float32
    coordinates: `columns` (the plan's: axis letter -> column), per-sample `flips` and
    `centers` (axis letter -> (n,) values)."""
    points = np.asarray(points, np.int64).reshape(-1)
    n = len(points)
    if not 0 <= cols <= 3 or any(not 0 <= c < cols for c in columns.values()):
        raise ValueError("coord_flip takes up to 3 columns")
    if n == 0 or cols == 0 or not points.any():
        return None
    parts = np.zeros((n, FIELDS), np.int64)
    parts[:, 0] = _offsets(src_offsets, points * cols, 4, n)
    parts[:, 1] = _offsets(dst_offsets, points * cols, 4, n)
    parts[:, 2] = points
    twice = np.zeros((n, 3), np.float32)
    for axis, col in columns.items():
        flip = np.broadcast_to(np.asarray(flips[axis]) != 0, (n,))
        parts[:, 3] |= flip.astype(np.int64) << col
        twice[:, col] = np.float32(2) * np.broadcast_to(
            np.asarray(centers[axis], np.float32), (n,))
    grid, block = _grid(parts, points * cols)
    return Launch("coord_flip", grid, block, parts, twice, np.int32(cols), np.int32(cols))


def coord_transform(mats, points, cols, frames, repeat, in_dtype, out_dtype, src_offsets=None,
                    dst_offsets=None):
    """The `Launch` of fn.coord_transform from its plan: `mats` (parts or 1, rows, cols + 1)
    float32, `points` per output sample, `frames` per sample (per-frame matrices) or None,
    `repeat` (the input repeated once per frame: not a sequence) or None."""
    src_code, dst_code = _CODES.get(np.dtype(in_dtype)), _CODES.get(np.dtype(out_dtype))
    if src_code is None or dst_code not in (src_code, "f32"):
        raise ValueError(f"coords.cu has no coord_transform from {np.dtype(in_dtype)} to "
                         f"{np.dtype(out_dtype)}")
    mats = np.ascontiguousarray(mats, np.float32)
    points = np.asarray(points, np.int64).reshape(-1)
    n = len(points)
    rows = mats.shape[1]
    if mats.ndim != 3 or mats.shape[2] != cols + 1:
        raise ValueError(f"the matrices must be (parts, rows, {cols + 1})")
    per = np.ones(n, np.int64) if frames is None else np.asarray(frames, np.int64).reshape(-1)
    in_points = points if repeat is None else points // np.maximum(per, 1)
    src = _offsets(src_offsets, in_points * cols, np.dtype(in_dtype).itemsize, n)
    dst = _offsets(dst_offsets, points * rows, np.dtype(out_dtype).itemsize, n)
    total = int(per.sum())
    if mats.shape[0] not in (1, total):
        raise ValueError(f"one matrix, or one per part ({total}), not {mats.shape[0]}")
    if total == 0 or rows == 0 or not points.any():
        return None
    ppf = np.repeat(points // np.maximum(per, 1), per)
    k = np.arange(total) - np.repeat(np.cumsum(per) - per, per)
    parts = np.empty((total, FIELDS), np.int64)
    parts[:, 0] = np.repeat(src, per) + (0 if repeat is not None else k * ppf * cols)
    parts[:, 1] = np.repeat(dst, per) + k * ppf * rows
    parts[:, 2] = ppf
    parts[:, 3] = 0 if mats.shape[0] == 1 else np.arange(total) * rows * (cols + 1)
    grid, block = _grid(parts, ppf * rows)
    return Launch(f"coord_transform_{src_code}_{dst_code}", grid, block, parts,
                  mats.reshape(-1), np.int32(rows), np.int32(cols))
