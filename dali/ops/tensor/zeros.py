"""fn.zeros and fn.ones: new samples of a given shape and type filled with 0 or 1 (one pattern
element repeated by the nogil `fill` kernel, see `_fill`)."""

from __future__ import annotations

from dali import _operator, _registry, _types
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.tensor import _fill


class _Constant(_operator.Operator):
    value = 0

    def setup(self):
        dtype = T(self.args["dtype"])
        if not _types.is_numeric(dtype):
            raise self.error(f"Unsupported output type: {dtype}", RuntimeError)
        self.pattern = _fill.constant(self.value, _types.dtype_of(dtype))

    def infer(self, ws):
        shapes = _fill.shapes(self, ws)
        lay = _fill.layout(self, shapes.shape[1])
        return _operator.Plan([_operator.OutputDesc(shapes, self.pattern.dtype, lay,
                                                    shapes.shape[1])])

    def run_cpu(self, ws, plan):
        _fill.run(ws, self.pattern)


def _schema(name, what):
    return Schema(name, inputs=0, outputs=1, devices=("cpu",),
                  doc=f"Returns new data of the given shape and type, filled with {what}.",
                  args=[_fill.SHAPE, Arg("dtype", T.DATA_TYPE, T.INT32, doc="Output type."),
                        _fill.LAYOUT])


@_registry.register
class Zeros(_Constant):
    schema = _schema("zeros", "zeros")
    value = 0


@_registry.register
class Ones(_Constant):
    schema = _schema("ones", "ones")
    value = 1
