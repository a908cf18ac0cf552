"""fn.reductions.sum: the sum of the elements along some axes (see `_reduce` for the rules the
reductions share)."""

from __future__ import annotations

from dali import _registry
from dali.ops.reductions import _reduce

_DOC = (
    "Gets the sum of the elements along the given axes.")


@_registry.register
class Sum(_reduce.Reduction):
    schema = _reduce.schema("sum", _DOC, dtype=True)
    op = "sum"
