"""fn.cat: joins the inputs along an existing axis.

The inputs must have the same type and number of dimensions, and per sample the same extents
apart from the join axis (given by index, `axis`, or by name in the first input's layout,
`axis_name`).  The output has the first input's layout.  The copy is the nogil `join` kernel
(see `_join`).
"""

from __future__ import annotations

from dali import _operator, _registry
from dali._schema import Schema
from dali.ops.tensor import _join


@_registry.register
class Cat(_operator.Operator):
    schema = Schema(
        "cat", inputs=(1, -1), outputs=1, devices=("cpu", "gpu"),
        doc="Joins the input tensors along an existing axis. Per sample, the inputs' shapes "
            "must match except in the joined axis.",
        args=_join.args("cat"))

    def setup(self):
        _join.check_args(self, stack=False)
        self._memo = _join.JoinMemo()

    def infer(self, ws):
        return _join.plan(self, ws, self._memo, stack=False)

    def run_cpu(self, ws, plan):
        _join.run(ws, plan)

    def run_gpu(self, ws, plan):
        _join.run_gpu(ws, plan)
