"""The operator library (one module per operator) and the `dali.ops` class API.

Importing this package imports every operator module (so each registers itself), then installs
the generated classes: `dali.ops.Resize`, `dali.ops.readers.File`, ...
"""

import importlib
import pkgutil

from dali import _registry


def _import_all():
    for info in pkgutil.walk_packages(__path__, __name__ + "."):
        if not info.name.rsplit(".", 1)[-1].startswith("_"):
            importlib.import_module(info.name)


_import_all()
_registry.populate(__name__, "ops")
