"""fn.reductions.std_dev: the standard deviation about the `mean` input of the elements along some
axes (see `_reduce` for the rules the reductions share)."""

from __future__ import annotations

from dali import _registry
from dali.ops.reductions import _reduce

_DOC = (
    "Gets the standard deviation of the elements along the given axes, about `mean` (a scalar "
    "or one value per output element).")


@_registry.register
class StdDev(_reduce.Reduction):
    schema = _reduce.schema("std_dev", _DOC, centred=True)
    op = "std_dev"
