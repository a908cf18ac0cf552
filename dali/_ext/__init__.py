"""The compiled core (built from the top-level _ext/ folder by setup.py).

`cpu` is imported first: it alone is built for the baseline instruction set, and it stops the
import with a clear ImportError when this CPU lacks an instruction set the other extensions
were compiled for (setup.py records them in the generated `_build_info.py`), instead of letting
a kernel kill the process with SIGILL.
"""

import importlib.util

from dali._ext import cpu

try:
    from dali._ext import _build_info
except ImportError:              # extensions built by a setup.py that kept no record
    _build_info = None

if _build_info is not None:
    cpu.check(" ".join(_build_info.MARCH) or "the compiler's default", _build_info.CPU_FEATURES)


def has_libjpeg_turbo():
    """Whether the libjpeg-turbo JPEG kernel was built; without it OpenCV decodes JPEGs."""
    return importlib.util.find_spec("dali._ext.kernels.jpeg") is not None
