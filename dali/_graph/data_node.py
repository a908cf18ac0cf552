"""DataNode: a symbolic batch, one output of an operator node in a traced graph.

Python operators on DataNodes (`+`, `<`, `&`, `x[1:3]`, `abs(x)`, ...) become operator calls.
Those operators live in `dali.ops` (above this layer), which binds them here with `implements`
when it is imported; this keeps the graph layer free of operator imports.
"""

from __future__ import annotations

from collections.abc import Callable

_methods: dict[str, Callable] = {}


def implements(name: str):
    """Register the operator-layer function behind a DataNode method (`arithmetic`, ...)."""

    def deco(fn):
        _methods[name] = fn
        return fn

    return deco


def _call(name, *args, **kwargs):
    return _methods[name](*args, **kwargs)


_BOOL_MSG = (
    '"DataNode" was used in conditional context - it might have been used in truth evaluation '
    "for `if` statement, logical expression or cast to a boolean. To use conditional execution "
    "via `if` statements you need to specify `enable_conditionals=True` in `@dali.pipeline_def` "
    "decorator. You can read more about conditional execution in specific section of the "
    "Pipeline documentation. Bool conversion can be achieved with the `cast` operator.")


class DataNode:
    """One output of an operator: a batch that exists when the pipeline runs.

    Attributes
    ----------
    name : str
        Unique name of this output (`<op name>` or `<op name>[i]`).
    device : str
        "cpu" or "gpu".
    source : OpNode
        The operator node that produces it.
    index : int
        Which output of `source` it is.
    """

    __slots__ = ("name", "device", "source", "index", "__weakref__")

    def __init__(self, name, device="cpu", source=None, index=0):
        self.name = name
        self.device = device
        self.source = source
        self.index = index

    def __repr__(self):
        return f'DataNode(name="{self.name}", device="{self.device}")'

    __str__ = __repr__

    # -- device transfer ----------------------------------------------------------------------
    def gpu(self) -> DataNode:
        """This batch on the GPU (the copy is inserted when the pipeline is built)."""
        return _call("to_device", self, "gpu")

    def cpu(self) -> DataNode:
        """This batch on the host (GPU-to-CPU needs `exec_dynamic=True`)."""
        return _call("to_device", self, "cpu")

    # -- metadata -----------------------------------------------------------------------------
    def shape(self, *, dtype=None, device="cpu") -> DataNode:
        """Per-sample shape as a 1-D tensor (INT64 by default)."""
        return _call("shape", self, dtype=dtype, device=device)

    def source_info(self, *, device="cpu") -> DataNode:
        """Per-sample source description (e.g. the file a sample was read from), as uint8 text."""
        return _call("property", self, "source_info", device=device)

    def property(self, key, *, device="cpu") -> DataNode:
        """Per-sample metadata: "source_info" or "layout"."""
        return _call("property", self, key, device=device)

    # -- truth value --------------------------------------------------------------------------
    def __bool__(self):
        raise TypeError(_BOOL_MSG)

    def __hash__(self):
        return id(self)

    # Not iterable, and not an `Iterable` (as in DALI, whose helpers flatten nested outputs by
    # that test): without this, iteration would fall back to __getitem__ and never end.
    __iter__ = None

    # -- indexing -----------------------------------------------------------------------------
    def __getitem__(self, index):
        return _call("subscript", self, index)

    # -- arithmetic ---------------------------------------------------------------------------
    def __add__(self, other):
        return _call("arithmetic", "add", self, other)

    def __radd__(self, other):
        return _call("arithmetic", "add", other, self)

    def __sub__(self, other):
        return _call("arithmetic", "sub", self, other)

    def __rsub__(self, other):
        return _call("arithmetic", "sub", other, self)

    def __mul__(self, other):
        return _call("arithmetic", "mul", self, other)

    def __rmul__(self, other):
        return _call("arithmetic", "mul", other, self)

    def __pow__(self, other):
        return _call("arithmetic", "pow", self, other)

    def __rpow__(self, other):
        return _call("arithmetic", "pow", other, self)

    def __truediv__(self, other):
        return _call("arithmetic", "fdiv", self, other)

    def __rtruediv__(self, other):
        return _call("arithmetic", "fdiv", other, self)

    def __floordiv__(self, other):
        return _call("arithmetic", "div", self, other)

    def __rfloordiv__(self, other):
        return _call("arithmetic", "div", other, self)

    def __mod__(self, other):
        return _call("arithmetic", "mod", self, other)

    def __rmod__(self, other):
        return _call("arithmetic", "mod", other, self)

    def __eq__(self, other):
        return _call("arithmetic", "eq", self, other)

    def __ne__(self, other):
        return _call("arithmetic", "neq", self, other)

    def __lt__(self, other):
        return _call("arithmetic", "lt", self, other)

    def __le__(self, other):
        return _call("arithmetic", "leq", self, other)

    def __gt__(self, other):
        return _call("arithmetic", "gt", self, other)

    def __ge__(self, other):
        return _call("arithmetic", "geq", self, other)

    def __and__(self, other):
        return _call("arithmetic", "bitand", self, other)

    def __rand__(self, other):
        return _call("arithmetic", "bitand", other, self)

    def __or__(self, other):
        return _call("arithmetic", "bitor", self, other)

    def __ror__(self, other):
        return _call("arithmetic", "bitor", other, self)

    def __xor__(self, other):
        return _call("arithmetic", "bitxor", self, other)

    def __rxor__(self, other):
        return _call("arithmetic", "bitxor", other, self)

    def __lshift__(self, other):
        return _call("arithmetic", "lshift", self, other)

    def __rlshift__(self, other):
        return _call("arithmetic", "lshift", other, self)

    def __rshift__(self, other):
        return _call("arithmetic", "rshift", self, other)

    def __rrshift__(self, other):
        return _call("arithmetic", "rshift", other, self)

    def __neg__(self):
        return _call("arithmetic", "minus", self)

    def __pos__(self):
        return self

    def __invert__(self):
        return _call("arithmetic", "bitnot", self)

    def __abs__(self):
        return _call("arithmetic", "abs", self)
