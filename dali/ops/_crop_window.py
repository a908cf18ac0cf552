"""Crop windows: the arguments, anchors and out-of-bounds policies fn.crop and
fn.crop_mirror_normalize share (and fn.slice can reuse `place` and `copy_window`).

A window is given as `crop` ((H, W) or (D, H, W)) or `crop_h`/`crop_w`/`crop_d`; extents are
truncated to integers and one that is not positive means the whole input extent.  Its anchor is
`(input - crop) * crop_pos` (crop_pos as float32, the product in double: 0.9 * 15 is just below
13.5), rounded half away from zero (`rounding="round"`) or toward zero (`"truncate"`);
`crop_pos_*` must lie in [0, 1].  The depth extent applies to the layout's D, or to F when there
is no D (as DALI does).

Out of bounds (`out_of_bounds_policy`): "error" raises, "pad" fills the part outside the input
with `fill_values` (one value, or one per channel), "trim_to_shape" intersects the window with
the input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dali._schema import Arg
from dali._types import DALIDataType as T
from dali.ops import _layouts

POLICIES = ("error", "pad", "trim_to_shape")
ROUNDINGS = ("round", "truncate")
LAYOUTS = ("HWC", "CHW", "DHWC", "CDHW", "FHWC", "FCHW", "CFHW", "FDHWC", "FCDHW", "CFDHW")
_BY_NDIM = {3: "HWC", 4: "DHWC", 5: "FDHWC"}


def crop_args():
    """The window arguments of the cropping operators."""
    return [
        Arg("crop", T._FLOAT_VEC, None, tensor=True,
            doc="Window size `(crop_h, crop_w)` or `(crop_d, crop_h, crop_w)`; extents are "
                "truncated to integers and a non-positive one keeps the whole extent."),
        Arg("crop_h", T.FLOAT, 0.0, tensor=True, doc="Window height (with `crop_w`)."),
        Arg("crop_w", T.FLOAT, 0.0, tensor=True, doc="Window width (with `crop_h`)."),
        Arg("crop_d", T.FLOAT, 0.0, tensor=True,
            doc="Window depth, for volumes (D) or, without D, sequences (F)."),
        Arg("crop_pos_x", T.FLOAT, 0.5, tensor=True,
            doc="Normalized horizontal position of the window: 0 left, 1 right."),
        Arg("crop_pos_y", T.FLOAT, 0.5, tensor=True,
            doc="Normalized vertical position of the window: 0 top, 1 bottom."),
        Arg("crop_pos_z", T.FLOAT, 0.5, tensor=True,
            doc="Normalized depth position of the window: 0 front, 1 back."),
        Arg("out_of_bounds_policy", T.STRING, "error",
            doc='What to do with a window that exceeds the input: "error", "pad" (with '
                '`fill_values`) or "trim_to_shape".'),
        Arg("fill_values", T._FLOAT_VEC, [0.0],
            doc="Values of the padded area: one value, or one per output channel."),
        Arg("rounding", T.STRING, "round",
            doc='How the anchor is made an integer: "round" (half away from zero) or '
                '"truncate".'),
        Arg("image_type", T.IMAGE_TYPE, None,
            deprecated="The argument `image_type` is no longer used and will be removed in a "
                       "future release.",
            ignored="deprecated in DALI, where it has no effect either"),
    ]


def check_args(op):
    """Definition-time checks (`setup`), with DALI's messages."""
    given = op.spec.given
    args = op.args
    if "crop" in given and given & {"crop_h", "crop_w", "crop_d"}:
        raise op.error("`crop` argument is not compatible with `crop_h`, `crop_w`, `crop_d`",
                       RuntimeError)
    if ("crop_h" in given) != ("crop_w" in given):
        raise op.error("`crop_w` and `crop_h` arguments must be provided together",
                       RuntimeError)
    if "crop" in given and "crop" not in op.spec.arg_inputs and not 2 <= len(args["crop"]) <= 3:
        raise op.error("`crop` argument should have 2 or 3 elements depending on the input "
                       "data shape", RuntimeError)
    policy = args.get("out_of_bounds_policy", "error")     # the decoders' crop has none
    if policy not in POLICIES:
        raise op.error(f"Not supported out_of_bounds_policy: {policy}", RuntimeError)
    if args["rounding"] not in ROUNDINGS:
        raise op.error(f"``rounding`` value {args['rounding']} is not supported. Supported "
                       'values are "round", or "truncate".', RuntimeError)


def layout_of(op, tl) -> str:
    """The input layout, validated; an empty one is HWC, DHWC or FDHWC by dimensions."""
    return _layouts.input_layout(op, tl, LAYOUTS, _BY_NDIM)


@dataclass
class Window:
    """One sample's window over all its dimensions, and whether it needs padding."""

    anchor: tuple
    shape: tuple
    padded: bool


def windows(op, ws, shapes, layout, policy=None):
    """Per-sample windows (after the out-of-bounds `policy`, by default the operator's) for
    inputs of `shapes`, as `Window`s (see `window_arrays`)."""
    anchors, sizes, padded = window_arrays(op, ws, shapes, layout, policy)
    return [Window(tuple(a), tuple(s), bool(p))
            for a, s, p in zip(anchors.tolist(), sizes.tolist(), padded.tolist(), strict=True)]


def window_arrays(op, ws, shapes, layout, policy=None):
    """The windows of a batch of inputs of `shapes` (a sequence of tuples or an (n, ndim)
    array), computed for all samples at once: (anchors, shapes, padded), int64 arrays
    (n, ndim) and a bool array (n,) saying which windows need padding."""
    in_shape = np.asarray(shapes, dtype=np.int64).reshape(len(shapes), len(layout))
    n = len(in_shape)
    depth = layout.find("D")
    if depth < 0:
        depth = layout.find("F")
    axes = {"H": layout.index("H"), "W": layout.index("W"), "D": depth}
    extents = _window_sizes(ws, n)
    policy = policy or op.args["out_of_bounds_policy"]
    anchor, shape = np.zeros_like(in_shape), in_shape.copy()
    for name, d in axes.items():
        extent = extents.get(name)
        if d < 0 or extent is None:
            continue
        given = extent > 0
        arg = f"crop_pos_{'xyz'['WHD'.index(name)]}"
        p = ws.arg_array(arg, np.float64)
        bad = np.flatnonzero(given & ~((p >= 0.0) & (p <= 1.0)))
        if len(bad):
            i = int(bad[0])
            raise ws.sample_error(
                i, f"Anchor for dimension {d} ({p[i]:f}) is out of range [0.0, 1.0]: `{arg}` "
                   "must be in [0, 1].")
        a = p.astype(np.float32).astype(np.float64) * (in_shape[:, d] - extent)
        if op.args["rounding"] != "truncate":
            a = a + np.copysign(0.5, a)
        anchor[:, d] = np.where(given, np.trunc(a), 0).astype(np.int64)
        shape[:, d] = np.where(given, extent, in_shape[:, d])
    return place(ws, in_shape, anchor, shape, policy)


def _window_sizes(ws, n):
    """{"D"/"H"/"W": int64 extents (n,)} from `crop` or `crop_h`/`crop_w`/`crop_d`, for the
    axes given; 0 or less keeps the whole extent."""
    if n == 0:
        return {}
    if ws.arg_given("crop"):
        values = ws.arg("crop")
        if not ws.is_arg_input("crop"):
            values = values[:1]
        rows = []
        for i, c in enumerate(values):
            c = np.asarray(c, dtype=np.float64).reshape(-1)
            if not 2 <= c.size <= 3:
                raise ws.sample_error(i, "`crop` argument should have 2 or 3 elements "
                                         f"depending on the input data shape, got {c.size}")
            rows.append(np.concatenate([np.zeros(3 - c.size), c]))     # no depth: 0, whole
        table = np.broadcast_to(np.trunc(np.array(rows)).astype(np.int64), (n, 3))
        return {"D": table[:, 0], "H": table[:, 1], "W": table[:, 2]}
    return {name: np.trunc(ws.arg_array(arg, np.float64)).astype(np.int64)
            for name, arg in (("H", "crop_h"), ("W", "crop_w"), ("D", "crop_d"))
            if ws.arg_given(arg)}


def place(ws, in_shape, anchor, shape, policy):
    """Apply the out-of-bounds `policy` to the windows (`anchor`, `shape`: (n, ndim) arrays)
    over inputs of `in_shape`; returns (anchors, shapes, padded)."""
    inside = ((anchor >= 0) & (anchor + shape <= in_shape)).all(axis=1)
    if inside.all() or policy == "pad":
        return anchor, shape, ~inside
    if policy == "error":
        i = int(np.flatnonzero(~inside)[0])
        raise ws.sample_error(
            i, "Slice can't be placed out of bounds with current policy. Got: "
               f"input_shape={_dims(in_shape[i])}, slice_anchor={_dims(anchor[i])}, "
               f"slice_shape={_dims(shape[i])}. Use out_of_bounds_policy=\"pad\" or "
               "\"trim_to_shape\" to allow it.")
    lo = np.clip(anchor, 0, in_shape)
    hi = np.clip(anchor + shape, 0, in_shape)
    return lo, hi - lo, np.zeros(len(in_shape), dtype=bool)


def _dims(values):
    return "{" + " x ".join(str(int(v)) for v in values) + "}"


def fill_array(ws, i, fill_values, channels, dtype):
    """`fill_values` as an array broadcastable over `channels`, converted like DALI (a plain C
    cast: truncation, integers wrap around)."""
    values = np.asarray(fill_values, dtype=np.float64).reshape(-1)
    if values.size != 1 and values.size != channels:
        raise ws.sample_error(
            i, f"Multi-channel fill value does not match the number of channels in the output: "
               f"{values.size} values for {channels} channels.")
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        with np.errstate(invalid="ignore"):
            return np.trunc(values).astype(np.int64).astype(dtype)
    with np.errstate(over="ignore"):
        return values.astype(dtype)


def source_region(src, window):
    """The part of the window that lies inside `src`, as a view of `src`, and where it goes
    in the output (a tuple of slices)."""
    src_index, dst_index = [], []
    for a, s, e in zip(window.anchor, window.shape, src.shape, strict=True):
        lo, hi = min(max(a, 0), e), min(max(a + s, 0), e)
        hi = max(hi, lo)
        src_index.append(slice(lo, hi))
        dst_index.append(slice(lo - a, hi - a))
    return src[tuple(src_index)], tuple(dst_index)
