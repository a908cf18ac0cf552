"""DALI's deprecated names of colour operators that left `experimental` (DALI 2.x):
`fn.experimental.equalize` and `fn.experimental.debayer`, which warn (DeprecationWarning) when a
pipeline using them is built and are otherwise fn.equalize and fn.debayer."""

from __future__ import annotations

from dali.ops import _aliases
from dali.ops.color import debayer, equalize

_MOVED = "the operator moved out of `experimental`"
ALIASES = [
    _aliases.deprecated_alias("experimental.equalize", equalize.Equalize, _MOVED, __name__),
    _aliases.deprecated_alias("experimental.debayer", debayer.Debayer, _MOVED, __name__),
]
