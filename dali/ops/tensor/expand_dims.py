"""fn.expand_dims: insert dimensions of extent 1.

`axes` are positions in the *output*: `axes=[0, 3]` on (H, W) gives (1, H, W, 1).  Names
given in `new_axis_names` pair with `axes` in the order given and are inserted into the
layout; without names the layout is cleared (DALI's rule; an explicit empty `new_axis_names`
counts as none, where DALI 2.4 produces a layout of the wrong length).  The data is not
copied: the output is a view of the input batch.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.tensor import _views


@_registry.register
class ExpandDims(_operator.Operator):
    schema = Schema(
        "expand_dims", inputs=1, outputs=1, devices=("cpu", "gpu"), input_names=["data"],
        doc="Inserts new dimensions of extent 1 at the positions `axes` (indices in the output "
            "shape). With `new_axis_names` their names are inserted into the layout; without "
            "them the output layout is empty.",
        args=[Arg("axes", T._INT32_VEC, REQUIRED,
                  doc="Indices, in the output, at which the new dimensions are inserted."),
              Arg("new_axis_names", T.TENSOR_LAYOUT, "",
                  doc="Names of the new dimensions in the layout, one per entry of `axes`; "
                      "the input must then have a layout.")])

    def setup(self):
        axes = list(self.args["axes"])
        names = self.args["new_axis_names"] or ""
        if any(a < 0 for a in axes):
            raise RuntimeError(f"{self.spec.display_name}: Axis value can't be negative "
                               f"(axes={axes}).")
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"{self.spec.display_name}: Duplicate axis index found "
                               f"(axes={axes}).")
        if names and len(names) != len(axes):
            raise RuntimeError(
                f"{self.spec.display_name}: Specified {len(axes)} new dimensions, but layout "
                f"contains only {len(names)} new dimension names")
        pairs = sorted(zip(axes, names or [None] * len(axes), strict=True))
        self.axes = [a for a, _ in pairs]
        self.names = [n for _, n in pairs] if names else None
        self._memo = _views.ShapeMemo()

    def infer(self, ws):
        tl = ws.inputs[0]
        in_ndim = tl.ndim()
        out_ndim = in_ndim + len(self.axes)
        if self.axes and self.axes[-1] >= out_ndim:
            raise self.error(
                f"Data has not enough dimensions to add new axes at specified indices: "
                f"axes {self.axes} on {in_ndim}-D input (output has {out_ndim} dimensions).",
                IndexError)
        layout = tl.layout() if not self.axes else ""
        if self.names is not None:
            if in_ndim and not tl.layout():
                raise self.error("Specifying `new_axis_names` requires an input with a proper "
                                 "layout.")
            layout = list(tl.layout())
            for a, name in zip(self.axes, self.names, strict=True):
                layout.insert(a, name)
            layout = "".join(layout)
        in_shapes = ws.input_storage(0).shapes
        shapes = self._memo.get(in_shapes)
        if shapes is None:
            shapes = np.ones((len(in_shapes), out_ndim), np.int64)
            shapes[:, [d for d in range(out_ndim) if d not in self.axes]] = in_shapes
            shapes = self._memo.put(in_shapes, _views.frozen(shapes))
        return _operator.Plan(
            [_operator.OutputDesc(None, ws.input_dtype(0), layout, out_ndim)], shapes=shapes)

    def run_cpu(self, ws, plan):
        storage = ws.input_storage(0)
        ws.outputs = [_views.viewed(storage, storage.dtype, plan.shapes)]

    run_gpu = run_cpu           # a view: the same on a device batch (DeviceBatch.viewed_as)
