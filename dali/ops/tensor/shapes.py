"""fn.shapes (deprecated in DALI in favour of `DataNode.shape()`, kept for older pipelines):
the shape of every input sample as a 1-D tensor of `dtype` (int64 by default; DALI allows
int32, uint32, int64, uint64, float and double).  Warns (DeprecationWarning) when a pipeline
using it is built."""

from __future__ import annotations

import warnings

from dali import _operator, _registry, _types
from dali._gpu import host
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T

_ALLOWED = (T.INT32, T.UINT32, T.INT64, T.UINT64, T.FLOAT, T.FLOAT64)


@_registry.register
class Shapes(_operator.Operator):
    schema = Schema(
        "shapes", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Returns the shapes of the input samples, each as a 1-D tensor (deprecated in "
            "DALI: use `DataNode.shape()`).",
        args=[Arg("dtype", T.DATA_TYPE, T.INT64,
                  doc="Output type: INT32, UINT32, INT64, UINT64, FLOAT or FLOAT64."),
              Arg("type", T.DATA_TYPE, None, alias_of="dtype")])

    def setup(self):
        warnings.warn("`dali.fn.shapes` is now deprecated. Use `DataNode.shape()` instead.",
                      DeprecationWarning, stacklevel=2)
        dtype = T(self.args["dtype"])
        if dtype not in _ALLOWED:
            name = _types.type_name(dtype) if _types.is_numeric(dtype) else str(dtype)
            raise self.error("Operator Shapes can return the output as one of the following:\n"
                             "int32, uint32, int64, uint64, float or double;\n"
                             f"requested: {name}", RuntimeError)
        self.dtype = _types.dtype_of(dtype)

    def infer(self, ws):
        storage = ws.input_storage(0)
        return _operator.Plan([_operator.OutputDesc([(storage.ndim,)] * ws.batch_size,
                                                    self.dtype, "", 1)])

    def run_cpu(self, ws, plan):
        out = ws.outputs[0].dense()
        if out is not None and out.size:
            out[...] = ws.input_storage(0).shapes

    def run_gpu(self, ws, plan):
        """The shapes worked out on the host and uploaded, as DALI's GPU backend copies them."""
        host.run_on_host(self, ws, plan)
