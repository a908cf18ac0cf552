"""fn.stack: joins the inputs along a new axis.

The inputs must have the same type and, per sample, the same shape; the new axis (of extent
the number of inputs) is inserted at `axis` (negative values count from the back: -1 appends
it).  The output has a layout only when `axis_name` names the new axis.  The copy is the
nogil `join` kernel (see `_join`).
"""

from __future__ import annotations

from dali import _operator, _registry
from dali._schema import Schema
from dali.ops.tensor import _join


@_registry.register
class Stack(_operator.Operator):
    schema = Schema(
        "stack", inputs=(1, -1), outputs=1, devices=("cpu", "gpu"),
        doc="Joins the input tensors along a new axis. Per sample, the inputs must have the "
            "same shape.",
        args=_join.args("stack"))

    def setup(self):
        _join.check_args(self, stack=True)
        self._memo = _join.JoinMemo()

    def infer(self, ws):
        return _join.plan(self, ws, self._memo, stack=True)

    def run_cpu(self, ws, plan):
        _join.run(ws, plan)

    def run_gpu(self, ws, plan):
        _join.run_gpu(ws, plan)
