"""`dali.plugin_manager`: DALI's plugin loader.

DALI plugins are shared libraries of operators written against DALI's C++ API; dali has no C++
operator interface to load them into, so `load_library` says so (after DALI's own check that the
file exists) and `load_directory` of a folder without libraries does nothing, as in DALI.
"""

from __future__ import annotations

import os

__all__ = ["load_directory", "load_library"]


def load_library(library_path: str, global_symbols: bool = False):
    """Refuse a DALI C++ plugin (see the module docstring)."""
    if not os.path.isfile(library_path):
        raise RuntimeError(f"Failed to load library {library_path}: {library_path}: cannot "
                           "open shared object file: No such file or directory")
    raise RuntimeError(f"Failed to load library {library_path}: dali cannot load DALI C++ "
                       "plugins (operators are Python classes registered with "
                       "dali._registry.register)")


def load_directory(plugin_dir_path: str, global_symbols: bool = False):
    """Load every `*.so` in a folder: refused as `load_library` refuses one."""
    if not os.path.isdir(plugin_dir_path):
        return
    for name in sorted(os.listdir(plugin_dir_path)):
        if name.endswith(".so"):
            load_library(os.path.join(plugin_dir_path, name), global_symbols)
