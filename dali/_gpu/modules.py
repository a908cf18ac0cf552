"""The runtime loader of the GPU kernels: CUDA C sources kept beside the operators
(`dali/ops/<family>/<op>.cu`, packaged with them), compiled by CuPy the first time a kernel is
asked for and cached per (source, options, device).

    from dali._gpu import modules
    k = modules.kernel(__file__, "flip_4", device_id)    # a cupy.RawKernel-like function
    k(grid, block, args)

Kernels are `extern "C"` (their names are the plain C names; the same sources build under the
CPU emulation of tests/gpu, which needs C names too).  CuPy is imported on the first call.
"""

from __future__ import annotations

import functools
import os

from dali import _gpu


def source_path(module_file):
    """The `.cu` source of an operator module: `flip.py` -> `flip.cu` in the same folder, and
    the GPU helper `_flip_gpu.py` -> `flip.cu` too; a `.cu` path is returned as it is."""
    folder, base = os.path.split(os.fspath(module_file))
    stem, ext = os.path.splitext(base)
    if ext == ".cu":
        return os.fspath(module_file)
    if stem.startswith("_") and stem.endswith("_gpu"):
        stem = stem[1:-4]
    return os.path.join(folder, stem + ".cu")


def kernel(module_file, name, device_id=0, options=()):
    """The kernel `name` of the `.cu` source of `module_file` (see `source_path`), compiled
    for device `device_id` with the NVRTC `options` (a tuple, part of the cache key)."""
    return _module(source_path(module_file), tuple(options), device_id).get_function(name)


@functools.cache
def _module(path, options, device_id):
    cupy = _gpu.require(f"the CUDA kernels of {os.path.basename(path)}", device_id)
    with open(path, encoding="utf-8") as f:
        code = f.read()
    with cupy.cuda.Device(device_id):
        module = cupy.RawModule(code=code, options=("--std=c++17", *options))
        module.compile()          # errors (with NVRTC's log) now, not at the first launch
    return module
