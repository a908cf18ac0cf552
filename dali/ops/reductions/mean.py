"""fn.reductions.mean: the mean of the elements along some axes (see `_reduce` for the rules the
reductions share)."""

from __future__ import annotations

from dali import _registry
from dali.ops.reductions import _reduce

_DOC = (
    "Gets the mean of the elements along the given axes.")


@_registry.register
class Mean(_reduce.Reduction):
    schema = _reduce.schema("mean", _DOC, dtype=True)
    op = "mean"
