"""The operator registry, and the `dali.fn` / `dali.ops` APIs generated from it.

`@register` records an `Operator` subclass under its schema.  `fn_function(impl)` and
`ops_class(impl)` build the user-facing wrappers: plain closures and classes (no code strings)
carrying the schema's signature and docstring, so `help(fn.resize)` and IDEs show real
parameters.  `populate(package, kind)` installs them into a package and its submodules
(`dali.fn.readers`, `dali.ops.random`, ...).
"""

from __future__ import annotations

import sys
import types

from dali import _operator

_REGISTRY: dict[str, type] = {}


def register(impl):
    """Class decorator: add an operator implementation to the registry."""
    schema = impl.schema
    if schema.name in _REGISTRY:
        raise RuntimeError(f"operator {schema.name} registered twice")
    _REGISTRY[schema.name] = impl
    return impl


def get(name: str) -> type:
    """The implementation registered under an fn path ("resize", "readers.file")."""
    return _REGISTRY[name]


def all_operators() -> dict[str, type]:
    return dict(_REGISTRY)


def fn_function(impl):
    schema = impl.schema

    def op(*inputs, **kwargs):
        return _operator.call(impl, inputs, kwargs)

    op.__name__ = schema.fn_name
    op.__qualname__ = schema.fn_name
    op.__module__ = ".".join(["dali.fn", *schema.module])
    op.__doc__ = schema.docstring()
    op.__signature__ = schema.signature()
    op._schema = schema
    return op


def ops_class(impl):
    schema = impl.schema
    sig = schema.signature()
    init_sig = sig.replace(parameters=[
        p for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY])
    return type(schema.class_name, (_operator.OpsClass,), {
        "_impl": impl,
        "schema": schema,
        "__doc__": schema.docstring(),
        "__module__": ".".join(["dali.ops", *schema.module]),
        "__signature__": init_sig,
    })


def _submodule(root, path):
    mod = root
    for i, part in enumerate(path):
        sub = getattr(mod, part, None)
        if not isinstance(sub, types.ModuleType):
            full = ".".join([root.__name__, *path[: i + 1]])
            sub = sys.modules.get(full) or types.ModuleType(full)
            sys.modules[full] = sub
            setattr(mod, part, sub)
        mod = sub
    return mod


def populate(package_name: str, kind: str):
    """Install every registered operator into `package_name` as fn functions or ops classes."""
    root = sys.modules[package_name]
    for impl in _REGISTRY.values():
        schema = impl.schema
        mod = _submodule(root, schema.module)
        if kind == "fn":
            setattr(mod, schema.fn_name, fn_function(impl))
        else:
            setattr(mod, schema.class_name, ops_class(impl))
