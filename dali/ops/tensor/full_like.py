"""fn.full_like: samples shaped like the first input (with its type and layout) filled with the
`fill_value` input, converted to that type as fn.cast converts (rounding, saturating) and
broadcast as NumPy does (see `_fill`)."""

from __future__ import annotations

from dali import _operator, _registry
from dali._ext.kernels import cast as cast_kernel
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Schema
from dali.ops.tensor import _fill


@_registry.register
class FullLike(_operator.Operator):
    schema = Schema(
        "full_like", inputs=2, outputs=1, devices=("cpu",),
        input_names=["data_like", "fill_value"],
        doc="Returns new data shaped like `data_like` (with its type and layout), filled with "
            "the fill value converted to that type. A non-scalar fill value must be "
            "broadcastable to the output shape (NumPy-style broadcasting).")

    def infer(self, ws):
        like = ws.input_storage(0)
        fill = ws.input_storage(1).contiguous()
        if fill.dtype != like.dtype:
            converted = BatchStorage.allocate(like.dtype, fill.shapes, ndim=fill.ndim)
            cast_kernel.cast_batch(ws.thread_pool, fill, converted)
            fill = converted
        return _operator.Plan([_operator.OutputDesc(like.shapes, like.dtype,
                                                    ws.inputs[0].layout() or "", like.ndim)],
                              pattern=_fill.patterns(self, fill, like.shapes))

    def run_cpu(self, ws, plan):
        _fill.run(ws, plan.pattern)
