"""Numba plugin: DALI 2.4's `numba_function` operator, which runs a numba-compiled function on
the samples without the GIL (`dali.plugin.numba.fn.experimental.numba_function`, also
`dali.plugin.numba.fn.numba_function`, and the class `dali.plugin.numba.NumbaFunction`).

It needs numba, an optional dependency: `pip install "dali[numba]"`.
"""

from __future__ import annotations

try:
    import numba  # noqa: F401
except ImportError as e:                  # pragma: no cover - depends on the environment
    raise ImportError('dali.plugin.numba needs numba: pip install "dali[numba]"') from e

from dali import _registry
from dali.plugin.numba import _numba_function

NumbaFunction = _registry.ops_class(_numba_function.NumbaFunction)
NumbaFunction.__module__ = __name__

from dali.plugin.numba import fn  # noqa: E402  (fn needs the operator defined above)

__all__ = ["NumbaFunction", "fn"]
