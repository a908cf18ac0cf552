"""The functional API: `dali.fn.resize(...)`, `dali.fn.readers.file(...)`, ...

Generated from the operator registry: each function carries its operator's signature and
docstring.
"""

from dali import _registry, ops  # noqa: F401  (importing ops registers every operator)

_registry.populate(__name__, "fn")
