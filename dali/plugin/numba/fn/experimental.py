"""`dali.plugin.numba.fn.experimental.numba_function`: the name DALI's documentation uses."""

from __future__ import annotations

from dali.plugin.numba.fn import numba_function

__all__ = ["numba_function"]
