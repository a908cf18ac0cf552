"""The two implementations a benchmark can run: dali, and real NVIDIA DALI (the peer).

A `Backend` bundles what a pipeline definition needs (`fn`, `types`, the `pipeline_def`
decorators), so one definition builds either implementation, as tests/pipeline_utils.py does.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import types as _pytypes

OURS = "dali"
PEER = "nvidia.dali"
NAMES = (OURS, PEER)


@dataclasses.dataclass(frozen=True)
class Backend:
    """One implementation of DALI's Python API.

    Attributes
    ----------
    name : str
        The package: "dali" or "nvidia.dali".
    pkg, fn, types : module
        The package, its `fn` and `types` modules.
    pipeline_def, debug_pipeline_def : callable
        `pipeline_def` and `pipeline.experimental.pipeline_def` (which takes `debug=`).
    """

    name: str
    pkg: _pytypes.ModuleType
    fn: _pytypes.ModuleType
    types: _pytypes.ModuleType
    pipeline_def: object
    debug_pipeline_def: object

    @property
    def label(self):
        """Short name for tables: "dali" or "DALI"."""
        return "dali" if self.name == OURS else "DALI"

    @property
    def version(self):
        return self.pkg.__version__


def available(name):
    """True when the package `name` can be imported (real DALI is optional)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def load(name):
    """The Backend for package `name` ("dali" or "nvidia.dali")."""
    if name not in NAMES:
        raise ValueError(f"unknown backend {name!r}; expected one of {NAMES}")
    pkg = importlib.import_module(name)
    experimental = importlib.import_module(f"{name}.pipeline.experimental")
    return Backend(name=name, pkg=pkg, fn=importlib.import_module(f"{name}.fn"),
                   types=importlib.import_module(f"{name}.types"),
                   pipeline_def=pkg.pipeline_def,
                   debug_pipeline_def=experimental.pipeline_def)


def has_operator(backend, path):
    """True when `backend.fn` has the dotted operator `path` (e.g. "decoders.image")."""
    obj = backend.fn
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return True
