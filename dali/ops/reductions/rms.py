"""fn.reductions.rms: the root mean square of the elements along some axes (see `_reduce` for the
rules the reductions share)."""

from __future__ import annotations

from dali import _registry
from dali.ops.reductions import _reduce

_DOC = (
    "Gets the root mean square of the elements along the given axes.")


@_registry.register
class RMS(_reduce.Reduction):
    schema = _reduce.schema("rms", _DOC, dtype=True, class_name="RMS")
    op = "rms"
