"""`dali.plugin.numba.fn.numba_function` (and `fn.experimental.numba_function`, DALI's usual
spelling of the same function)."""

from __future__ import annotations

from dali import _registry
from dali.plugin.numba import _numba_function

numba_function = _registry.fn_function(_numba_function.NumbaFunction)
numba_function.__module__ = __name__

from dali.plugin.numba.fn import experimental  # noqa: E402  (it re-exports numba_function)

__all__ = ["numba_function", "experimental"]
