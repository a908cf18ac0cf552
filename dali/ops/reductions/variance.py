"""fn.reductions.variance: the variance about the `mean` input of the elements along some axes
(see `_reduce` for the rules the reductions share)."""

from __future__ import annotations

from dali import _registry
from dali.ops.reductions import _reduce

_DOC = (
    "Gets the variance of the elements along the given axes, about `mean` (a scalar or one "
    "value per output element).")


@_registry.register
class Variance(_reduce.Reduction):
    schema = _reduce.schema("variance", _DOC, centred=True)
    op = "variance"
