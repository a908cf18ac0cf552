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
from importlib import resources

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
    op._schema_name = schema.dali_schema_name
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
    """Install every registered operator into `package_name` as fn functions or ops classes;
    a DALI 2.4 operator that dali does not have says so when it is looked up."""
    root = sys.modules[package_name]
    for impl in _REGISTRY.values():
        schema = impl.schema
        mod = _submodule(root, schema.module)
        if kind == "fn":
            setattr(mod, schema.fn_name, fn_function(impl))
        else:
            setattr(mod, schema.class_name, ops_class(impl))
    for parts in {tuple(path.split(".")[:-1]) for path in _dali_operators()}:
        mod = _submodule(root, list(parts))
        mod.__getattr__ = _missing_lookup(mod, kind)


def _dali_operators():
    """The `fn` paths of real DALI 2.4's operators (dali/data/dali_operators.txt)."""
    text = resources.files("dali").joinpath("data/dali_operators.txt").read_text()
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def _camel(fn_name):
    return "".join(p[:1].upper() + p[1:] for p in fn_name.split("_"))


def _missing_lookup(module, kind):
    """A module `__getattr__` (PEP 562): names of DALI 2.4 operators dali lacks get an error
    that says so; other names the usual AttributeError."""
    prefix = module.__name__.split(".", 2)[2] + "." if module.__name__.count(".") > 1 else ""
    known = {p[len(prefix):] for p in _dali_operators() if p.startswith(prefix)}
    known = {n for n in known if "." not in n}
    if kind == "ops":
        known = {_camel(n) for n in known}

    def __getattr__(name):
        where = f"{module.__name__}.{name}"
        if name in known:
            raise AttributeError(
                f"{where} is an operator of NVIDIA DALI 2.4 that dali does not implement yet; "
                "docs/operators.md lists the operators dali has.", name=name, obj=module)
        raise AttributeError(f"module '{module.__name__}' has no attribute '{name}'",
                             name=name, obj=module)

    return __getattr__
