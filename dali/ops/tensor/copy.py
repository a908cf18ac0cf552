"""fn.copy: a deep copy of the input (same shapes, type and layout), one memcpy per piece of
the batch (the `cast` kernel with equal types)."""

from __future__ import annotations

from dali import _operator, _registry
from dali._ext.kernels import cast as cast_kernel
from dali._schema import Schema
from dali.ops.tensor import _views


@_registry.register
class Copy(_operator.Operator):
    schema = Schema("copy", inputs=1, outputs=1, devices=("cpu", "gpu"),
                    doc="Makes a copy of the input.")

    def infer(self, ws):
        return _views.same_shapes_plan(ws, ws.input_dtype(0))

    def run_cpu(self, ws, plan):
        cast_kernel.cast_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0])

    def run_gpu(self, ws, plan):
        src = ws.input_storage(0)
        ws.gpu.copy(ws.outputs[0].ptr, src.ptr, src.nbytes)
