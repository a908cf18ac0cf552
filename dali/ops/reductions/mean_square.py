"""fn.reductions.mean_square: the mean of the squares of the elements along some axes (see
`_reduce` for the rules the reductions share)."""

from __future__ import annotations

from dali import _registry
from dali.ops.reductions import _reduce

_DOC = (
    "Gets the mean of the squares of the elements along the given axes.")


@_registry.register
class MeanSquare(_reduce.Reduction):
    schema = _reduce.schema("mean_square", _DOC, dtype=True)
    op = "mean_square"
