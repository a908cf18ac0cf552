"""Box helpers shared by the detection operators: input checks, the boxes of a batch as one
(boxes, coordinates) array and box layouts ("xyXY", "xyWH", ...).

Boxes of all samples lie back to back in the batch's storage, so the operators work on the
whole batch at once, as one (total boxes, k) array; `box_counts` gives the number of boxes of
each sample, and per-sample arguments are spread over the boxes with `per_box`.  The crops
share `check_inside` (boxes within [0, 1]), `crop` (boxes clamped to and expressed in their
window, and which survive) and `kept_rows` (the surviving rows as a new batch).
"""

from __future__ import annotations

import numpy as np

from dali._ext.kernels import boxes
from dali._ext.tensor_storage import BatchStorage

_F32 = np.float32
_STARTS, _ENDS, _SIZES = "xyz", "XYZ", "WHD"


def check_float(op, ws, k=0):
    """The input `k` must hold float32 boxes."""
    if ws.input_dtype(k) != np.float32:
        raise op.error(f"bounding boxes must be float32, got {ws.input_dtype(k)}", RuntimeError)


def four_column_boxes(op, ws, k=0):
    """Input `k` must hold float32 [N, 4] boxes per sample: the (n,) box counts."""
    check_float(op, ws, k)
    storage = ws.input_storage(k)
    shapes = storage.shapes
    if storage.ndim != 2 or (len(shapes) and (shapes[:, 1] != 4).any()):
        raise op.error("bounding boxes must be [N, 4] per sample", RuntimeError)
    return shapes[:, 0]


def box_counts(ws, storage, k):
    """Number of `k`-number boxes of each sample, read as flat runs of boxes (the size of
    every sample must be a multiple of `k`)."""
    shapes = storage.shapes
    sizes = np.prod(shapes, axis=1) if storage.ndim else np.ones(len(shapes), np.int64)
    bad = np.flatnonzero(sizes % k)
    if len(bad):
        raise ws.sample_error(int(bad[0]), f"the size of the bounding box tensor must be a "
                                           f"multiple of {k}, got {int(sizes[bad[0]])}")
    return sizes // k


def flag(op, ws, name, counts):
    """A per-sample int flag argument: a Python bool when constant, else one bool per box."""
    if name is None:
        return False
    if not ws.is_arg_input(name):
        return op.args[name] != 0
    return per_box(ws.arg_array(name, np.int32) != 0, counts)


def per_box(values, counts):
    """Per-sample `values` spread over the boxes (a scalar when they are all equal)."""
    if len(values) and (values == values[0]).all():
        return values[0]
    return np.repeat(values, counts)


def per_box_arg(op, ws, name, counts, dtype=_F32):
    """A per-sample scalar argument: a scalar when constant, else one value per box."""
    if not ws.is_arg_input(name):
        return dtype(op.args[name])
    return per_box(ws.arg_array(name, dtype), counts)


def parse_layout(op, layout, ndim):
    """Column indices of a box layout: (starts, ends, sizes) lists of `ndim` entries each (an
    entry is None when the layout gives the other form of that axis)."""
    if len(layout) != 2 * ndim:
        raise op.error(f'`bbox_layout` "{layout}" does not match boxes of {2 * ndim} '
                       f'coordinates', RuntimeError)
    starts, ends, sizes = [], [], []
    for d in range(ndim):
        s, e, z = _STARTS[d], _ENDS[d], _SIZES[d]
        if s not in layout or (e in layout) == (z in layout):
            raise op.error(f'`bbox_layout` "{layout}" must hold "{s}" and one of "{e}" or '
                           f'"{z}"', RuntimeError)
        starts.append(layout.index(s))
        ends.append(layout.index(e) if e in layout else None)
        sizes.append(layout.index(z) if z in layout else None)
    return starts, ends, sizes


def to_corners(boxes, layout_cols):
    """(lo, hi): (m, ndim) float32 start and end corners of boxes in the parsed layout."""
    starts, ends, sizes = layout_cols
    nd = len(starts)
    if starts == list(range(nd)) and ends == list(range(nd, 2 * nd)):    # xyXY, xyzXYZ
        return boxes[:, :nd], boxes[:, nd:]
    lo = boxes[:, starts]
    hi = np.empty_like(lo)
    for d, (e, z) in enumerate(zip(ends, sizes, strict=True)):
        hi[:, d] = boxes[:, e] if e is not None else lo[:, d] + boxes[:, z]
    return lo, hi


def from_corners(lo, hi, layout_cols):
    """Boxes in the parsed layout from their corners."""
    starts, ends, sizes = layout_cols
    nd = len(starts)
    if starts == list(range(nd)) and ends == list(range(nd, 2 * nd)):    # xyXY, xyzXYZ
        return np.concatenate([lo, hi], axis=1).astype(_F32, copy=False)
    out = np.empty((lo.shape[0], 2 * lo.shape[1]), _F32)
    for d, (s, e, z) in enumerate(zip(starts, ends, sizes, strict=True)):
        out[:, s] = lo[:, d]
        if e is not None:
            out[:, e] = hi[:, d]
        else:
            out[:, z] = hi[:, d] - lo[:, d]
    return out


def labels(op, ws, k, counts):
    """The int32 labels of input `k`, [N] or [N, 1] per sample with N = `counts`: (storage,
    rows), rows the labels of all samples as one array (N, or (N, 1), rows)."""
    if ws.input_dtype(k) != np.int32:
        raise op.error(f"labels must be int32, got {ws.input_dtype(k)}", RuntimeError)
    st = ws.input_storage(k).contiguous()
    shapes = st.shapes
    if st.ndim not in (1, 2) or (st.ndim == 2 and len(shapes) and (shapes[:, 1] != 1).any()):
        raise op.error("labels must be [N] or [N, 1] per sample", RuntimeError)
    bad = np.flatnonzero(shapes[:, 0] != counts)
    if len(bad):
        i = int(bad[0])
        raise ws.sample_error(i, f"the sample has {int(counts[i])} boxes but "
                                 f"{int(shapes[i, 0])} labels", RuntimeError)
    return st, st.flat().reshape(-1, 1) if st.ndim == 2 else st.flat()


def check_inside(ws, src, lo, hi, counts):
    """Relative boxes (rows `src`, corners `lo`, `hi`) must lie within [0, 1]."""
    b = boxes.first_outside(lo, hi)
    if b >= 0:
        i = int(np.searchsorted(np.cumsum(counts), b, side="right"))
        raise ws.sample_error(i, f"box {src[b].tolist()} is out of bounds [0, 1] (or its end "
                                 f"is before its start)", RuntimeError)


def crop(lo, hi, counts, crop_lo, crop_hi, nocrop, prune=None):
    """Boxes (corners `lo`, `hi`, `counts` per sample) against per-sample relative windows.

    Returns (new_lo, new_hi, keep, kept): the corners clamped to their window and relative to
    it, which boxes survive (centre in the window, or with `prune` at least that fraction of
    the area in it, and some of it; every box of a `nocrop` sample) and how many per sample
    (float32 throughout, one nogil pass: `boxes.crop_boxes`).
    """
    return boxes.crop_boxes(lo, hi, counts, crop_lo, crop_hi, nocrop, prune)


def kept_rows(rows, keep, kept, ndim):
    """A new batch of the `keep` rows of `rows` (the rows of all samples, back to back),
    `kept[i]` of them in sample i; samples of `ndim` dimensions (rows of 1-D samples are
    scalars)."""
    shapes = np.empty((len(kept), ndim), np.int64)
    shapes[:, 0] = kept
    shapes[:, 1:] = rows.shape[1:] if ndim > 1 else ()
    out = BatchStorage.allocate(rows.dtype, shapes, ndim=ndim)
    # np.compress copies whole rows; a boolean index goes element by element (7x slower)
    picked = rows if keep.all() else np.compress(keep, rows, axis=0)
    out.flat().reshape(picked.shape)[...] = picked
    return out
