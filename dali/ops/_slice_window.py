"""Slice windows as DALI's slicing operators define them (fn.decoders.image_slice; fn.slice can
share them): the arguments, their checks and the window of each sample.

A window is given either by two extra positional inputs, anchor and shape (floats are
normalized coordinates unless `normalized_anchor` / `normalized_shape` say otherwise, integers
are pixels), or by named arguments: `start` or `rel_start` (default 0) and one of `end`,
`rel_end`, `shape`, `rel_shape` (default: to the end).  Values are listed in the order of
`axis_names` (default "WH": x then y) or `axes` (indices into the sliced dimensions, negative
from the back).  In pixels, start = round(anchor) and end = round(anchor + shape), rounding
half away from zero, so adjacent slices tile the image without gaps or overlaps.
"""

from __future__ import annotations

import numpy as np

from dali._schema import Arg
from dali._types import DALIDataType as T

_STARTS = ("start", "rel_start")
_ENDS = ("end", "rel_end", "shape", "rel_shape")


def slice_args():
    """The window arguments of the slicing operators."""
    return [
        Arg("start", T._INT32_VEC, None, tensor=True,
            doc="Start coordinates of the slice, in pixels."),
        Arg("rel_start", T._FLOAT_VEC, None, tensor=True,
            doc="Start coordinates of the slice, relative to the extent (0..1)."),
        Arg("end", T._INT32_VEC, None, tensor=True,
            doc="End coordinates of the slice (exclusive), in pixels."),
        Arg("rel_end", T._FLOAT_VEC, None, tensor=True,
            doc="End coordinates of the slice, relative to the extent."),
        Arg("shape", T._INT32_VEC, None, tensor=True, doc="Shape of the slice, in pixels."),
        Arg("rel_shape", T._FLOAT_VEC, None, tensor=True,
            doc="Shape of the slice, relative to the extent."),
        Arg("axes", T._INT32_VEC, [1, 0], tensor=True,
            doc="Dimensions the coordinates refer to, in their order (negative: from the "
                "back). Excludes `axis_names`."),
        Arg("axis_names", T.TENSOR_LAYOUT, "WH",
            doc="Dimensions the coordinates refer to, by layout name; has priority over "
                "`axes`."),
        Arg("normalized_anchor", T.BOOL, True,
            doc="A float anchor input is normalized (0..1) rather than in pixels."),
        Arg("normalized_shape", T.BOOL, True,
            doc="A float shape input is normalized (0..1) rather than in pixels."),
    ]


def check_args(op):
    """Definition-time checks, with DALI's messages."""
    given = op.spec.given
    if "axes" in given and "axis_names" in given:
        raise op.error('"axes" and "axis_names" are mutually exclusive', RuntimeError)
    if all(n in given for n in _STARTS):
        raise op.error('"start" and "rel_start" arguments are mutually exclusive', RuntimeError)
    if sum(n in given for n in _ENDS) > 1:
        raise op.error('"end", "rel_end", "shape", and "rel_shape" arguments are mutually '
                       "exclusive", RuntimeError)


def windows(op, ws, shapes, layout):
    """Per-sample (start, end) arrays over the dimensions of `layout` for inputs of `shapes`;
    positional anchor and shape inputs (inputs 1 and 2) when given, else named arguments."""
    named = [n for n in (*_STARTS, *_ENDS) if ws.arg_given(n)]
    positional = len(ws.inputs) == 3
    if positional and named:
        raise op.error("Named arguments start/end/shape are not compatible with positional "
                       "anchor and shape inputs", RuntimeError)
    if not positional and not named:
        raise op.error("Expected named slice arguments (e.g. start/end, start/shape) or "
                       f"positional inputs (start, shape). Got {len(ws.inputs)} inputs.",
                       RuntimeError)
    out = []
    for i, shape in enumerate(shapes):
        extent = np.asarray(shape, dtype=np.float64)
        axes = _axes(op, ws, i, layout, len(shape))
        if positional:
            lo, hi = _positional(op, ws, i, extent[axes])
        else:
            lo, hi = _named(ws, i, extent[axes])
        start, end = np.zeros(len(shape), np.int64), np.array(shape, np.int64)
        start[axes] = _round(lo)
        end[axes] = _round(hi)
        out.append((start, end))
    return out


def window_arrays(op, ws, shapes, layout):
    """`windows` as two int64 arrays (n, ndim), starts and ends (ndim: of `shapes` when it
    is an (n, ndim) array, else of `layout`): computed for all samples at once when the
    slice comes from named arguments given as constants or uniform argument inputs (the
    values and errors `windows` gives), else sample by sample."""
    shapes = np.asarray(shapes, np.int64)
    ndim = shapes.shape[1] if shapes.ndim == 2 else len(layout)
    shapes = shapes.reshape(-1, ndim)
    if len(shapes) and len(ws.inputs) != 3:
        fast = _named_arrays(op, ws, shapes, layout)
        if fast is not None:
            return fast
    out = windows(op, ws, shapes.tolist(), layout)
    return (np.array([s for s, _ in out], np.int64).reshape(-1, ndim),
            np.array([e for _, e in out], np.int64).reshape(-1, ndim))


def _named_arrays(op, ws, shapes, layout):
    """`_named` for every sample at once, or None where values differ in length per sample."""
    given = [name for name in (*_STARTS, *_ENDS) if ws.arg_given(name)]
    per_sample_axes = not (ws.arg_given("axis_names") or not ws.arg_given("axes"))
    if not given or (per_sample_axes and ws.is_arg_input("axes")):
        return None
    axes = _axes(op, ws, 0, layout, shapes.shape[1])
    extent = shapes[:, axes].astype(np.float64)
    rows = {}
    for name in given:
        v = ws.arg_rows(name, np.float64)
        if v is None or v.shape[1] != len(axes):
            return None
        rows[name] = v
    lo, hi = region(rows, extent)
    bad = np.argwhere(hi < lo)
    if len(bad):
        i, k = bad[0].tolist()
        raise ws.sample_error(i, f"end coordinates can't be before start coordinates. Got: "
                                 f"start={lo[i, k]:g} end={hi[i, k]:g}", RuntimeError)
    start, end = np.zeros_like(shapes), shapes.copy()
    start[:, axes] = _round(lo)
    end[:, axes] = _round(hi)
    return start, end


def _axes(op, ws, i, layout, ndim):
    if ws.arg_given("axis_names") or not ws.arg_given("axes"):
        return named_axes(ws, i, op.args["axis_names"], layout)
    return axis_indices(ws, i, ws.arg("axes")[i], ndim)


def named_axes(ws, i, names, layout):
    """The dimensions of `layout` named by `names`, with DALI's error for a missing one."""
    missing = [c for c in names if c not in layout]
    if missing:
        raise ws.sample_error(i, f"Axis '{missing[0]}' is not present in the input layout",
                              RuntimeError)
    return np.array([layout.index(c) for c in names], np.int64)


def axis_indices(ws, i, axes, ndim):
    """`axes` (negative: from the back) as dimension indices, with DALI's range error."""
    axes = np.asarray(axes, np.int64).reshape(-1)
    bad = axes[(axes < -ndim) | (axes >= ndim)]
    if len(bad):
        raise ws.sample_error(i, f"Axis {bad[0]} out of range. Expected range is [{-ndim}, "
                                 f"{ndim - 1}] for a {ndim}D input", RuntimeError)
    return axes % ndim


def _values(ws, i, name, n):
    v = np.asarray(ws.arg(name)[i], np.float64).reshape(-1)
    if v.size != n:
        raise ws.sample_error(i, f'Argument "{name}" expected shape {n} but got {v.size} '
                                 "values", RuntimeError)
    return v


def region(values, extent):
    """(lo, hi) of a region over `extent` from the values of the named arguments given among
    start / rel_start and end / rel_end / shape / rel_shape (absolute, relative to the extent,
    or a size from lo); the whole extent where none is given.  Elementwise: one sample's
    (n,) values or a batch's (N, n) rows."""
    lo = np.zeros(np.shape(extent))
    if "start" in values:
        lo = values["start"]
    elif "rel_start" in values:
        lo = values["rel_start"] * extent
    if "end" in values:
        hi = values["end"]
    elif "rel_end" in values:
        hi = values["rel_end"] * extent
    elif "shape" in values:
        hi = lo + values["shape"]
    elif "rel_shape" in values:
        hi = lo + values["rel_shape"] * extent
    else:
        hi = np.array(extent, np.float64)
    return lo, hi


def _named(ws, i, extent):
    n = len(extent)
    lo, hi = region({name: _values(ws, i, name, n) for name in (*_STARTS, *_ENDS)
                     if ws.arg_given(name)}, extent)
    bad = np.flatnonzero(hi < lo)
    if len(bad):
        k = bad[0]
        raise ws.sample_error(i, f"end coordinates can't be before start coordinates. Got: "
                                 f"start={lo[k]:g} end={hi[k]:g}", RuntimeError)
    return lo, hi


def _positional(op, ws, i, extent):
    anchor, shape = ws.input_samples(1)[i], ws.input_samples(2)[i]
    n = len(extent)
    values = []
    for name, v, normalized in (("anchor", anchor, op.args["normalized_anchor"]),
                                ("shape", shape, op.args["normalized_shape"])):
        flat = np.asarray(v, np.float64).reshape(-1)
        if flat.size != n:
            raise ws.sample_error(i, f"the {name} input has {flat.size} values for {n} "
                                     "sliced dimensions", RuntimeError)
        values.append(flat * extent if normalized and v.dtype.kind == "f" else flat)
    return values[0], values[0] + values[1]


def _round(v):
    """Half away from zero."""
    return (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int64)
