"""The runtime loader of the GPU kernels: CUDA C sources kept beside the operators
(`dali/ops/<family>/<op>.cu`, packaged with them), compiled the first time a kernel is asked
for and cached per (source, options, device).

    from dali._gpu import modules
    k = modules.kernel(__file__, "flip_4", device_id)    # a cupy Function
    k(grid, block, args)

Sources are compiled by `dali._gpu.nvrtc` with its IEEE-exact `OPTIONS` (CuPy's RawModule
compile path adds `-ftz=true`, which would flush denormals the CPU kernels keep) to a cubin for
the device's architecture (PTX for the newest one NVRTC knows when the device is newer), kept
under the temporary directory by content hash and loaded with `cupy.RawModule(path=...)`; the
hash is the compiled binary's, so an edit of the source or of a shared header
(`dali/ops/_cuda/*.cuh`, see `nvrtc.INCLUDE_DIR`) that changes the code gives a new file.
Kernels are `extern "C"` (plain C names, as the CPU emulation of tests/gpu needs too).  CuPy is
imported on the first call.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile

from dali import _gpu
from dali._gpu import nvrtc


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
    for device `device_id` with the extra NVRTC `options` (part of the cache key)."""
    return _module(source_path(module_file), tuple(options), device_id).get_function(name)


@functools.cache
def _module(path, options, device_id):
    cupy = _gpu.require(f"the CUDA kernels of {os.path.basename(path)}", device_id)
    with open(path, encoding="utf-8") as f:
        code = f.read()
    with cupy.cuda.Device(device_id) as device:
        cc = int(device.compute_capability)
        newest = max(a for a in nvrtc.supported_archs() if a <= cc)
        if newest == cc:
            binary, ext = nvrtc.compile_cubin(code, path, f"sm_{cc}", options), ".cubin"
        else:
            ptx = nvrtc.compile_ptx(code, path, f"compute_{newest}", options)
            binary, ext = ptx.encode(), ".ptx"
        return cupy.RawModule(path=_cached(binary, ext))


def _cached(binary, ext):
    """A file holding `binary` (RawModule loads modules from files), named by its hash."""
    folder = os.path.join(tempfile.gettempdir(), "dali_cuda_modules")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, hashlib.sha256(binary).hexdigest()[:32] + ext)
    if not os.path.exists(path):
        fd, tmp = tempfile.mkstemp(suffix=ext, dir=folder)
        with os.fdopen(fd, "wb") as f:
            f.write(binary)
        os.replace(tmp, path)             # atomic: concurrent processes never read half a file
    return path
