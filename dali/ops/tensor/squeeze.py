"""fn.squeeze: remove dimensions of extent 1, given by index (`axes`) or by layout name.

A removed dimension must have extent 1, unless the sample is empty before and after (then any
extent may go).  `axes` may be a per-sample argument input, as long as every sample ends up with
the same number of dimensions.  The data is not copied.

Where DALI 2.4 silently returns the input unchanged (an axis that is negative or not below the
number of dimensions) this raises an error instead; DALI also rejects `axes` given as an
argument input, which works here.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.tensor import _views


@_registry.register
class Squeeze(_operator.Operator):
    schema = Schema(
        "squeeze", inputs=1, outputs=1, devices=("cpu", "gpu"), input_names=["data"],
        doc="Removes the dimensions given as `axes` or `axis_names`. Removed dimensions must "
            "have extent 1 (unless the sample has no elements before and after).",
        args=[Arg("axes", T._INT32_VEC, None, tensor=True,
                  doc="Indices of the dimensions to remove, in [0, ndim)."),
              Arg("axis_names", T.TENSOR_LAYOUT, None,
                  doc="Layout names of the dimensions to remove.")])

    def setup(self):
        given = self.spec.given
        if "axes" in given and "axis_names" in given:
            raise RuntimeError(f"{self.spec.display_name}: Provided both `axes` and "
                               "`axis_names` arguments")
        if "axes" not in given and "axis_names" not in given:
            raise RuntimeError(f"{self.spec.display_name}: Missing argument `axes` or "
                               "`axis_names`.")
        self._memo = _views.ShapeMemo()

    def infer(self, ws):
        tl = ws.inputs[0]
        ndim, layout = tl.ndim(), tl.layout()
        in_shapes = ws.input_storage(0).shapes
        per_sample = ws.is_arg_input("axes")
        if per_sample:
            axes = _stacked_axes(ws, [np.asarray(v).reshape(-1).astype(np.int64)
                                      for v in ws.arg("axes")])
            found = None
        else:
            fixed = list(self.args["axes"]) if ws.arg_given("axes") else self._named(tl)
            axes = np.array(fixed, np.int64).reshape(1, -1)
            found = self._memo.get(in_shapes, tuple(fixed))
        if found is None:
            found = _squeezed(ws, in_shapes, axes)
            if not per_sample:
                self._memo.put(in_shapes, found, tuple(axes[0].tolist()))
        shapes, removed = found
        if layout:
            layout = "".join(c for d, c in enumerate(layout) if d not in removed)
        out_ndim = ndim - len(removed)
        return _operator.Plan([_operator.OutputDesc(None, ws.input_dtype(0), layout, out_ndim)],
                              shapes=shapes)

    def _named(self, tl):
        layout = tl.layout()
        axes = []
        for name in self.args["axis_names"]:
            d = layout.find(name)
            if d < 0:
                raise self.error(f"Axis '{name}' is not present in the input layout "
                                 f"\"{layout}\".")
            axes.append(d)
        return axes

    def run_cpu(self, ws, plan):
        storage = ws.input_storage(0)
        ws.outputs = [_views.viewed(storage, storage.dtype, plan.shapes)]

    run_gpu = run_cpu           # a view: the same on a device batch (DeviceBatch.viewed_as)


def _stacked_axes(ws, rows):
    """Per-sample axes as an array (num_samples, k): every sample removes as many."""
    for i, r in enumerate(rows):
        if len(r) != len(rows[0]):
            raise ws.sample_error(
                i, f"removes {len(r)} dimensions but sample 0 removes {len(rows[0])}: all "
                   "samples must keep the same number of dimensions")
    return np.stack(rows) if rows else np.zeros((0, 0), np.int64)


def _squeezed(ws, in_shapes, axes):
    """(output shapes, the set of dimensions sample 0 loses) for `axes`, one row per sample
    or one row for all; checks every sample."""
    n, ndim = in_shapes.shape
    axes = np.broadcast_to(axes, (n, axes.shape[1])) if n else axes
    for i, row in enumerate(axes):
        bad = (row < 0) | (row >= ndim)
        if bad.any():
            raise ws.sample_error(
                i, f"Axis {row[bad][0]} is out of range for a {ndim}-D input: `axes` must be "
                   f"in [0, {ndim}).", IndexError)
        if len(set(row.tolist())) != len(row):
            raise ws.sample_error(i, "Specified at least twice same dimension to remove "
                                     f"(axes={row.tolist()}).")
        if len(axes) > 1 and not ws.is_arg_input("axes"):
            break                   # the same axes for every sample: checked once
    drop = np.zeros((n, ndim), bool)
    drop[np.arange(n)[:, None], axes] = True
    kept = np.where(drop, 1, in_shapes)
    empty = (in_shapes.prod(axis=1) == 0) & (kept.prod(axis=1) == 0)
    wrong = drop & (in_shapes != 1) & ~empty[:, None]
    if wrong.any():
        i, d = (int(v) for v in np.argwhere(wrong)[0])
        raise ws.sample_error(
            i, f"cannot remove dimension {d} of extent {in_shapes[i, d]} from a sample of "
               f"shape {tuple(in_shapes[i].tolist())}: only dimensions of extent 1 can be "
               "removed (the volume of the new shape must match the original one).")
    shapes = _views.frozen(in_shapes[~drop].reshape(n, ndim - axes.shape[1]))
    return shapes, set(axes[0].tolist()) if len(axes) else set()
