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
from dali.ops.tensor import expand_dims


@_registry.register
class Squeeze(_operator.Operator):
    schema = Schema(
        "squeeze", inputs=1, outputs=1, devices=("cpu",), input_names=["data"],
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

    def infer(self, ws):
        tl = ws.inputs[0]
        ndim, layout = tl.ndim(), tl.layout()
        if ws.is_arg_input("axes"):
            per_sample = [[int(a) for a in np.asarray(v).reshape(-1)] for v in ws.arg("axes")]
        else:
            axes = list(self.args["axes"]) if ws.arg_given("axes") else self._named(tl)
            per_sample = [axes] * max(ws.batch_size, 1)
        self.shapes = []
        removed = None
        for i, (shape, axes) in enumerate(zip(tl.shape(), per_sample, strict=False)):
            drop = self._check(ws, i, shape, axes)
            if removed is not None and len(drop) != len(removed):
                raise ws.sample_error(
                    i, f"removes {len(drop)} dimensions but sample 0 removes {len(removed)}: "
                       "all samples must keep the same number of dimensions")
            removed = removed if removed is not None else drop
            self.shapes.append(tuple(e for d, e in enumerate(shape) if d not in drop))
        if removed is None:         # an empty batch
            removed = set(per_sample[0]) if per_sample else set()
        if layout:
            layout = "".join(c for d, c in enumerate(layout) if d not in removed)
        self.ndim = ndim - len(removed)
        return _operator.Plan([_operator.OutputDesc(None, ws.input_dtype(0), layout, self.ndim)])

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

    @staticmethod
    def _check(ws, i, shape, axes):
        ndim = len(shape)
        for a in axes:
            if not 0 <= a < ndim:
                raise ws.sample_error(
                    i, f"Axis {a} is out of range for a {ndim}-D input: `axes` must be in "
                       f"[0, {ndim}).", IndexError)
        drop = set(axes)
        if len(drop) != len(axes):
            raise ws.sample_error(
                i, f"Specified at least twice same dimension to remove (axes={axes}).")
        kept = [e for d, e in enumerate(shape) if d not in drop]
        empty = int(np.prod(shape)) == 0 and int(np.prod(kept)) == 0
        for d in sorted(drop):
            if shape[d] != 1 and not empty:
                raise ws.sample_error(
                    i, f"cannot remove dimension {d} of extent {shape[d]} from a sample of "
                       f"shape {tuple(shape)}: only dimensions of extent 1 can be removed (the "
                       "volume of the new shape must match the original one).")
        return drop

    def run_cpu(self, ws, plan):
        ws.outputs = [expand_dims.reshaped(ws.input_storage(0), self.shapes, self.ndim)]
