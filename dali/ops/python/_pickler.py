"""The default pickler that sends parallel external sources to "spawn" workers: `pickle`, plus
functions that pickle cannot name (lambdas, functions defined inside other functions, functions
of `__main__`) sent by value: their code (`marshal`), the globals they use, their defaults and
closure, rebuilt in the worker.  Modules go by name.  It is used through `dumps`/`loads`, the
interface `py_callback_pickler` expects of a module.
"""

from __future__ import annotations

import importlib
import io
import marshal
import pickle
import sys
import types


def _importable(func):
    """Whether pickle can send `func` by reference (module and qualified name)."""
    module = getattr(func, "__module__", None)
    if module in (None, "__main__") or "<locals>" in func.__qualname__ or \
            func.__name__ == "<lambda>":
        return False
    obj = sys.modules.get(module)
    for part in func.__qualname__.split("."):
        obj = getattr(obj, part, None)
    return obj is func


def _global_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _make_function(code_bytes, globals_, name, defaults, kwdefaults, closure, qualname):
    code = marshal.loads(code_bytes)
    namespace = {"__builtins__": __builtins__, **globals_}
    cells = tuple(types.CellType(v) for v in closure) if closure is not None else None
    func = types.FunctionType(code, namespace, name, defaults, cells)
    func.__kwdefaults__ = kwdefaults
    func.__qualname__ = qualname
    return func


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, types.ModuleType):
            return importlib.import_module, (obj.__name__,)
        if isinstance(obj, types.FunctionType) and not _importable(obj):
            used = _global_names(obj.__code__)
            globals_ = {k: v for k, v in obj.__globals__.items() if k in used}
            closure = [c.cell_contents for c in obj.__closure__] \
                if obj.__closure__ is not None else None
            return _make_function, (marshal.dumps(obj.__code__), globals_, obj.__name__,
                                    obj.__defaults__, obj.__kwdefaults__, closure,
                                    obj.__qualname__)
        return NotImplemented


def dumps(obj, protocol=None):
    """`obj` as bytes (see the module docstring)."""
    buf = io.BytesIO()
    _Pickler(buf, protocol=protocol).dump(obj)
    return buf.getvalue()


def loads(data):
    return pickle.loads(data)
