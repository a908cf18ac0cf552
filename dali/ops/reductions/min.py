"""fn.reductions.min: the minimum of the elements along some axes (see `_reduce` for the rules the
reductions share)."""

from __future__ import annotations

from dali import _registry
from dali.ops.reductions import _reduce

_DOC = (
    "Gets the minimal value of the elements along the given axes.")


@_registry.register
class Min(_reduce.Reduction):
    schema = _reduce.schema("min", _DOC)
    op = "min"
