"""fn.zeros_like and fn.ones_like: samples shaped like the input's (and with its layout),
filled with 0 or 1, of the input's type unless `dtype` says otherwise (one pattern element
repeated by the nogil `fill` kernel, see `_fill`)."""

from __future__ import annotations

from dali import _operator, _registry, _types
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.tensor import _fill


class _ConstantLike(_operator.Operator):
    value = 0

    def setup(self):
        dtype = self.args["dtype"]
        if dtype is not None and not _types.is_numeric(T(dtype)):
            raise self.error(f"Unsupported output type: {T(dtype)}", RuntimeError)
        self.dtype = None if dtype is None else _types.dtype_of(T(dtype))
        self._patterns = {}

    def infer(self, ws):
        storage = ws.input_storage(0)
        dtype = self.dtype or storage.dtype
        pattern = self._patterns.get(dtype)
        if pattern is None:
            pattern = self._patterns.setdefault(dtype, _fill.constant(self.value, dtype))
        return _operator.Plan([_operator.OutputDesc(storage.shapes, dtype,
                                                    ws.inputs[0].layout() or "", storage.ndim)],
                              pattern=pattern)

    def run_cpu(self, ws, plan):
        _fill.run(ws, plan.pattern)


def _schema(name, what):
    return Schema(name, inputs=1, outputs=1, devices=("cpu",), input_names=["data_like"],
                  doc=f"Returns new data shaped like the input (with its layout), filled with "
                      f"{what}.",
                  args=[Arg("dtype", T.DATA_TYPE, None,
                            doc="Output type; by default the input's.")])


@_registry.register
class ZerosLike(_ConstantLike):
    schema = _schema("zeros_like", "zeros")
    value = 0


@_registry.register
class OnesLike(_ConstantLike):
    schema = _schema("ones_like", "ones")
    value = 1
