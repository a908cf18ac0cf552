"""`DataNode.shape()`: the shape of every sample as a 1-D tensor (`fn._shape`).

The output has one element per dimension of the input (none for a 0-D sample) and type INT64
unless `dtype` says otherwise; DALI allows int32, uint32, int64, uint64, float and double.
"""

from __future__ import annotations

from dali import _operator, _registry, _types
from dali._gpu import host
from dali._graph import data_node
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T

_ALLOWED = (T.INT32, T.UINT32, T.INT64, T.UINT64, T.FLOAT, T.FLOAT64)


@data_node.implements("shape")
def shape_of(node, dtype=None, device="cpu"):
    """`node.shape(dtype=..., device=...)`."""
    return _operator.call(Shape, [node], {"dtype": dtype, "device": device})


@_registry.register
class Shape(_operator.Operator):
    schema = Schema(
        "_shape", inputs=1, outputs=1, devices=("cpu", "gpu"), class_name="_Shape", internal=True,
        doc="Outputs the shape of each input sample as a 1-D tensor.",
        args=[Arg("dtype", T.DATA_TYPE, T.INT64, doc="Type of the output.")])

    def setup(self):
        dtype = self.args["dtype"]
        if dtype not in _ALLOWED:
            raise RuntimeError(
                f"{self.spec.display_name}: the shape can be returned as one of the following: "
                f"int32, uint32, int64, uint64, float or double; requested: "
                f"{_types.dtype_of(dtype).name if _types.is_numeric(dtype) else dtype}")
        self.dtype = _types.dtype_of(dtype)

    def infer(self, ws):
        tl = ws.inputs[0]
        return _operator.Plan(
            [_operator.OutputDesc([(tl.ndim(),)] * ws.batch_size, self.dtype, "", 1)])

    def run_cpu(self, ws, plan):
        out = ws.outputs[0].dense()
        if out is not None and out.size:
            out[...] = ws.input_storage(0).shapes

    def run_gpu(self, ws, plan):
        host.run_on_host(self, ws, plan)
