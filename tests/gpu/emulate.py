"""Run dali's CUDA kernels on the CPU: a `.cu` source is compiled with g++ under
`cuda_emulation.h` into a shared library and its kernels are launched over a grid through
ctypes, with the calling convention of `cupy.RawKernel`: `module.launch(name, grid, block,
args)` where args are numpy arrays (passed as pointers to their data) and numpy scalars
(passed by value with their exact type; Python ints are int64, floats float64, as CuPy does).

Libraries are cached under the temporary directory, keyed by the hash of the source, the
headers (this one and the kernels' shared ones, `dali/ops/_cuda/*.cuh`, found by g++'s `-I`
as NVRTC finds them by `--include-path`) and the compiler flags, so a test session compiles
each `.cu` once.

What a `.cu` file must follow to be emulated (docs/gpu.md repeats it):
- kernels are `extern "C" __global__ void` (found by a regular expression on that spelling);
- no `__shared__`, `__syncthreads()`, warp intrinsics, dynamic parallelism, textures or
  CUDA headers: threads must not cooperate (each thread's result cannot depend on another's);
- fixed-size types spelled as plain C types (`long long`, `unsigned char`): NVRTC has no
  <stdint.h> without the CUDA headers;
- device intrinsics limited to those the header defines (`__float_as_uint`, `__float2int_rn`,
  `min`/`max`, atomics, ...): add one there, matching CUDA's definition, when a kernel needs it.
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np

from dali._gpu import nvrtc

AVAILABLE = shutil.which("g++") is not None     # the emulation tests skip without it
HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cuda_emulation.h")
FLAGS = ("-std=c++20", "-O2", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math",
         f"-I{nvrtc.INCLUDE_DIR}")
# DALI_EMULATION_SANITIZE=1 builds the kernels with AddressSanitizer, so that an access out of
# a buffer stops the test with a report instead of corrupting the heap; run the tests with
# LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0.
if os.environ.get("DALI_EMULATION_SANITIZE"):
    FLAGS += ("-fsanitize=address", "-fno-omit-frame-pointer")
_KERNEL = re.compile(r'extern\s+"C"\s+__attribute__\(\(used\)\)\s+void\s+(\w+)\s*\(')
_SCALARS = {np.dtype(t): c for t, c in (
    (np.int8, ctypes.c_int8), (np.uint8, ctypes.c_uint8), (np.int16, ctypes.c_int16),
    (np.uint16, ctypes.c_uint16), (np.int32, ctypes.c_int32), (np.uint32, ctypes.c_uint32),
    (np.int64, ctypes.c_int64), (np.uint64, ctypes.c_uint64), (np.float32, ctypes.c_float),
    (np.float64, ctypes.c_double), (np.bool_, ctypes.c_bool))}
_modules = {}


class Module:
    """The kernels of one `.cu` file compiled for the CPU."""

    def __init__(self, path, lib, names):
        self.path, self._lib, self.names = path, lib, names

    def launch(self, name, grid, block, args):
        """Run kernel `name` over `grid` blocks of `block` threads (ints or up to 3-tuples)."""
        if name not in self.names:
            raise KeyError(f"{os.path.basename(self.path)} has no kernel {name!r} "
                           f"(kernels: {', '.join(self.names)})")
        values = [_argument(a) for a in args]
        pointers = (ctypes.c_void_p * max(len(values), 1))(
            *(ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values))
        getattr(self._lib, "dali_emu_launch_" + name)(_dim3(grid), _dim3(block), pointers)


def load(path):
    """The emulated `Module` of the `.cu` file at `path` (compiled once per content)."""
    texts = []
    for name in (path, HEADER, *sorted(glob.glob(os.path.join(nvrtc.INCLUDE_DIR, "*.cuh")))):
        with open(name, encoding="utf-8") as f:
            texts.append(f.read())
    key = hashlib.sha256("\0".join((*texts, *FLAGS)).encode()).hexdigest()
    module = _modules.get(key)
    if module is None:
        lib, names = _compile(path, texts[0], key)
        module = _modules[key] = Module(path, ctypes.CDLL(lib), names)
    return module


def _compile(path, source, key):
    """(library path, kernel names): the source is preprocessed first (kernels made by macros
    show there), then compiled with one launcher per kernel appended."""
    folder = os.path.join(tempfile.gettempdir(), "dali_cuda_emulation")
    os.makedirs(folder, exist_ok=True)
    lib = os.path.join(folder, f"{key[:24]}.so")
    code = f'#line 1 "{path}"\n{source}'       # compiler messages name the .cu and its lines
    expanded = _gxx(path, ["-E", "-include", HEADER, "-x", "c++", "-"], code)
    names = _KERNEL.findall(expanded)
    if os.path.exists(lib):
        return lib, names
    launchers = "".join(
        f'\nextern "C" void dali_emu_launch_{n}(const unsigned* g, const unsigned* b, '
        f"void** a) {{ dali_emu_launch(&{n}, g, b, a); }}\n" for n in names)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=folder)
    os.close(fd)
    try:
        _gxx(path, ["-include", HEADER, "-x", "c++", "-", "-o", tmp], code + launchers)
        os.replace(tmp, lib)          # atomic: concurrent sessions never load a partial file
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return lib, names


def _gxx(path, args, code):
    done = subprocess.run(["g++", *FLAGS, *args], input=code, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"emulated build of {path} failed:\n{done.stderr}")
    return done.stdout


def _argument(a):
    if isinstance(a, np.ndarray):
        if not (a.flags.c_contiguous or a.size == 0):
            raise ValueError("kernel arrays must be C-contiguous")
        return ctypes.c_void_p(a.ctypes.data)
    if isinstance(a, np.generic):
        return _SCALARS[a.dtype](a.item())
    if isinstance(a, bool):
        return ctypes.c_bool(a)
    if isinstance(a, int):
        return ctypes.c_int64(a)
    if isinstance(a, float):
        return ctypes.c_double(a)
    raise TypeError(f"unsupported kernel argument {type(a).__name__}")


def _dim3(d):
    d = (d,) if isinstance(d, int) else tuple(d)
    return (ctypes.c_uint * 3)(*d, *(1,) * (3 - len(d)))
