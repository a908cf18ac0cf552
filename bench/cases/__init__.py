"""The per-operator benchmark cases, one module per family of operators.

Each module defines `CASE_LIST`, a list of `bench.opcase.OpCase`; a new operator adds its case
to the module of its family (or a new module here: every module is collected).
"""

import importlib
import pkgutil


def all_cases():
    """Every module's CASE_LIST, in module-name order."""
    out = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        out.extend(importlib.import_module(f"{__name__}.{info.name}").CASE_LIST)
    return out
