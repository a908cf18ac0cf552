"""fn.expand_dims: insert dimensions of extent 1.

`axes` are positions in the *output*: `axes=[0, 3]` on (H, W) gives (1, H, W, 1).  Names
given in `new_axis_names` pair with `axes` in the order given and are inserted into the
layout; without names the layout is cleared (DALI's rule; an explicit empty `new_axis_names`
counts as none, where DALI 2.4 produces a layout of the wrong length).  The data is not
copied: a dense input batch is reshaped in place, other batches become per-sample views.
"""

from __future__ import annotations

from dali import _operator, _registry
from dali._ext.tensor_storage import BatchStorage
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T


@_registry.register
class ExpandDims(_operator.Operator):
    schema = Schema(
        "expand_dims", inputs=1, outputs=1, devices=("cpu",), input_names=["data"],
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

    def infer(self, ws):
        tl = ws.inputs[0]
        out_ndim = tl.ndim() + len(self.axes)
        if self.axes and self.axes[-1] >= out_ndim:
            raise self.error(
                f"Data has not enough dimensions to add new axes at specified indices: "
                f"axes {self.axes} on {tl.ndim()}-D input (output has {out_ndim} dimensions).",
                IndexError)
        layout = tl.layout() if not self.axes else ""
        if self.names is not None:
            if tl.ndim() and not tl.layout():
                raise self.error("Specifying `new_axis_names` requires an input with a proper "
                                 "layout.")
            layout = self._insert(list(tl.layout()), self.names)
        self.shapes = [tuple(self._insert(list(s), [1] * len(self.axes))) for s in tl.shape()]
        return _operator.Plan(
            [_operator.OutputDesc(None, ws.input_dtype(0), "".join(layout) if layout else "",
                                     out_ndim)])

    def _insert(self, items, new):
        for a, v in zip(self.axes, new, strict=True):
            items.insert(a, v)
        return items

    def run_cpu(self, ws, plan):
        ws.outputs = [reshaped(ws.input_storage(0), self.shapes,
                               ws.inputs[0].ndim() + len(self.axes))]


def reshaped(storage, shapes, ndim):
    """`storage`'s samples with new shapes (of the same volumes and `ndim` dimensions),
    sharing its memory."""
    if not shapes:
        return BatchStorage.allocate(storage.dtype, [], ndim=ndim)
    dense = storage.dense()
    if dense is not None and all(s == shapes[0] for s in shapes):
        return BatchStorage.from_dense(dense.reshape((len(shapes), *shapes[0])))
    return BatchStorage.from_samples([s.reshape(shape) for s, shape in
                                      zip(storage.samples(), shapes, strict=True)])
