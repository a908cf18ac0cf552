"""CuPy glue for the GPU backend: whether CuPy and a CUDA device are there, and the one error
that says what to install when they are not.

Nothing here imports CuPy at `import dali`: `cupy_available()` looks for the package without
importing it, and `device_count()` / `require()` import it only when asked (a GPU operator's
build, a test).  Submodules: `nvrtc` (CUDA C -> PTX without a driver, for the compile checks)
and `modules` (the lazily compiled, per-device cache of the `.cu` sources beside the
operators).  Executing operators with `device="gpu"` is not wired yet: see docs/gpu.md.
"""

from __future__ import annotations

import functools
import importlib.util

INSTALL_HINT = (
    'install CuPy with `pip install "dali[gpu]"` (CuPy for CUDA 12: cupy-cuda12x); with a '
    "CUDA 13 driver install cupy-cuda13x instead (`pip install dali cupy-cuda13x`)")


class GPUUnavailableError(RuntimeError):
    """CuPy or a CUDA device is missing for something that needs them."""


def cupy_available():
    """True when the `cupy` package can be imported (it is not imported here)."""
    return importlib.util.find_spec("cupy") is not None


@functools.cache
def device_count():
    """Number of CUDA devices CuPy sees; 0 without CuPy, without a driver or without a
    device (never raises)."""
    if not cupy_available():
        return 0
    import cupy

    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:       # CUDARuntimeError without a driver, ImportError of libcudart
        return 0


def require(what="the GPU backend", device_id=0):
    """Import and return CuPy, checking that device `device_id` exists.

    Raises `GPUUnavailableError` naming `what`, why (no CuPy, no device) and what to install.
    """
    if not cupy_available():
        raise GPUUnavailableError(f"{what} needs CuPy, which is not installed: {INSTALL_HINT}.")
    count = device_count()
    if count == 0:
        raise GPUUnavailableError(
            f"{what} needs a CUDA device, but CuPy finds none (no GPU, or no NVIDIA driver "
            f"for its CUDA version: {INSTALL_HINT}).")
    if not 0 <= device_id < count:
        raise GPUUnavailableError(
            f"{what}: device_id {device_id} does not exist ({count} CUDA device(s)).")
    import cupy

    return cupy
