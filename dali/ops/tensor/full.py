"""fn.full: new samples of the shape `shape` filled with the `fill_value` input (its type; a
non-scalar fill value is broadcast to the output shape as NumPy does, see `_fill`).  Without
`shape` the output is a scalar holding the fill value's first element, as in DALI."""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Schema
from dali.ops.tensor import _fill


@_registry.register
class Full(_operator.Operator):
    schema = Schema(
        "full", inputs=1, outputs=1, devices=("cpu",), input_names=["fill_value"],
        doc="Returns new data of the given shape and of the fill value's type, filled with the "
            "fill value. A non-scalar fill value must be broadcastable to the output shape "
            "(NumPy-style broadcasting, the output shape fixed).",
        args=[_fill.SHAPE, _fill.LAYOUT])

    def infer(self, ws):
        shapes = _fill.shapes(self, ws)
        lay = _fill.layout(self, shapes.shape[1])
        fill = ws.input_storage(0).contiguous()
        if shapes.shape[1] == 0 and fill.ndim:
            fill = BatchStorage.from_arrays(
                [np.asarray(s).reshape(-1)[:1].reshape(()) for s in fill.samples()])
        return _operator.Plan([_operator.OutputDesc(shapes, fill.dtype, lay, shapes.shape[1])],
                              pattern=_fill.patterns(self, fill, shapes))

    def run_cpu(self, ws, plan):
        _fill.run(ws, plan.pattern)
