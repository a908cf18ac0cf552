"""fn.reductions.max: the maximum of the elements along some axes (see `_reduce` for the rules the
reductions share)."""

from __future__ import annotations

from dali import _registry
from dali.ops.reductions import _reduce

_DOC = (
    "Gets the maximal value of the elements along the given axes.")


@_registry.register
class Max(_reduce.Reduction):
    schema = _reduce.schema("max", _DOC)
    op = "max"
