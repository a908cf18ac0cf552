"""fn.copy: a deep copy of the input (same shapes, type and layout)."""

from __future__ import annotations

from dali import _operator, _registry
from dali._schema import Schema
from dali.ops.tensor import cast


@_registry.register
class Copy(_operator.Operator):
    schema = Schema("copy", inputs=1, outputs=1, devices=("cpu",),
                    doc="Makes a copy of the input.")

    def infer(self, ws):
        tl = ws.inputs[0]
        return _operator.Plan(
            [_operator.OutputDesc(tl.shape(), ws.input_dtype(0), tl.layout(), tl.ndim())])

    def run_cpu(self, ws, plan):
        src, dst = cast.flat(ws.input_storage(0)), cast.flat(ws.outputs[0])
        if src is not None and dst is not None:
            dst[...] = src
            return
        for s, d in zip(ws.input_samples(0), ws.output_samples(0), strict=True):
            d[...] = s
