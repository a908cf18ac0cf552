"""Compile CUDA C to PTX with NVRTC, without a GPU or a driver.

Two ways to reach NVRTC, the first that works: CuPy's binding (`cupy.cuda.nvrtc`; importing
CuPy needs no driver), else ctypes on the `libnvrtc.so` of the NVIDIA wheel
(`nvidia-cuda-nvrtc-cu12`: `site-packages/nvidia/cuda_nvrtc/lib`; the CUDA 13 wheels put it in
`site-packages/nvidia/cu13/lib`).  The compile checks (tests/gpu/test_nvrtc.py) use this for
every `.cu` file, and `dali._gpu.modules` compiles the kernels it loads with it (CuPy's own
compile path forces `-ftz=true`, which the kernels must not have: see OPTIONS).  The headers
the kernels share (`dali/ops/_cuda/*.cuh`) are found through `--include-path` (INCLUDE_DIR).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import importlib.util
import os

from dali import _gpu

# IEEE-exact float arithmetic: denormals kept (CPU kernels keep them), correctly rounded
# division and square root, no contraction into fused multiply-adds (the CPU kernels and the
# emulation compute a * b + c in two roundings); C++17 for `if constexpr`.
OPTIONS = ("--std=c++17", "-ftz=false", "-prec-div=true", "-prec-sqrt=true", "-fmad=false")

# The device helpers the kernels share (`#include "dali_numeric.cuh"`): both backends add this
# folder to every compile's include path.
INCLUDE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "ops", "_cuda")
_INCLUDE_OPTION = f"--include-path={INCLUDE_DIR}"


class NVRTCError(RuntimeError):
    """A CUDA source failed to compile; the message holds the file name and NVRTC's log."""


def compile_ptx(source, name, arch="sm_80", options=()):
    """PTX (str) of the CUDA C `source` compiled for `arch` ("sm_80", "sm_90", or a
    "compute_XX" virtual architecture).

    `name` is the file name NVRTC reports in its messages (the `.cu` path).  `options` are extra
    NVRTC options after `OPTIONS` (`-D...`, `-I...`).  Raises `NVRTCError` with NVRTC's log when
    the source does not compile, `GPUUnavailableError` when no NVRTC is found.
    """
    arch = str(arch)
    if arch.startswith("sm_"):
        arch = "compute_" + arch[3:]          # PTX is for a virtual architecture
    opts = [f"--gpu-architecture={arch}", *OPTIONS, *options]
    return _backend()(source, os.fspath(name), opts, "PTX").decode().rstrip("\0")


def compile_cubin(source, name, arch, options=()):
    """Machine code (bytes, a cubin) of `source` for the real architecture `arch` ("sm_90");
    otherwise as `compile_ptx`."""
    opts = [f"--gpu-architecture={arch}", *OPTIONS, *options]
    return _backend()(source, os.fspath(name), opts, "CUBIN")


def version():
    """NVRTC's (major, minor) version; raises `GPUUnavailableError` without NVRTC."""
    return _backend().version()


def supported_archs():
    """The real architectures (compute capabilities as ints, 80 for sm_80) NVRTC compiles for."""
    return _backend().supported_archs()


def available():
    """Which NVRTC `compile_ptx` uses: "cupy", "wheel" (ctypes) or None when there is none."""
    try:
        return _backend().kind
    except _gpu.GPUUnavailableError:
        return None


@functools.cache
def _backend():
    if _gpu.cupy_available():
        try:
            from cupy.cuda import nvrtc

            nvrtc.getVersion()
            return _CupyNVRTC(nvrtc)
        except Exception:          # CuPy present but its NVRTC library is not: try the wheel
            pass
    path = _library_path()
    if path is None:
        raise _gpu.GPUUnavailableError(
            "NVRTC was not found: install CuPy (`pip install \"dali[gpu]\"`) or the "
            "nvidia-cuda-nvrtc-cu12 wheel to compile CUDA sources.")
    return _CtypesNVRTC(ctypes.CDLL(path))


def _library_path():
    """libnvrtc.so of an NVIDIA wheel (CUDA 12 or 13 layout), else the system's."""
    spec = importlib.util.find_spec("nvidia")
    roots = list(spec.submodule_search_locations) if spec is not None else []
    for root in roots:
        for sub in ("cuda_nvrtc/lib", "cu13/lib", "cu12/lib"):
            found = sorted(glob.glob(os.path.join(root, sub, "libnvrtc.so*")))
            found = [f for f in found if ".alt." not in f]
            if found:
                return found[0]
    return ctypes.util.find_library("nvrtc")


class _CupyNVRTC:
    kind = "cupy"

    def __init__(self, nvrtc):
        self._nvrtc = nvrtc

    def version(self):
        return tuple(self._nvrtc.getVersion())

    def supported_archs(self):
        return tuple(self._nvrtc.getSupportedArchs())

    def __call__(self, source, name, options, output):
        nvrtc = self._nvrtc
        prog = nvrtc.createProgram(source, name, [], [])
        try:
            try:
                nvrtc.compileProgram(prog, [*options, _INCLUDE_OPTION])
            except nvrtc.NVRTCError as e:
                raise NVRTCError(f"{name}: {e}\n{nvrtc.getProgramLog(prog)}") from None
            code = nvrtc.getPTX(prog) if output == "PTX" else nvrtc.getCUBIN(prog)
        finally:
            nvrtc.destroyProgram(prog)
        return code.encode() if isinstance(code, str) else code


class _CtypesNVRTC:
    kind = "wheel"

    def __init__(self, lib):
        self._lib = lib
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    def version(self):
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check(self._lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "version")
        return major.value, minor.value

    def supported_archs(self):
        count = ctypes.c_int()
        self._check(self._lib.nvrtcGetNumSupportedArchs(ctypes.byref(count)), "archs")
        archs = (ctypes.c_int * count.value)()
        self._check(self._lib.nvrtcGetSupportedArchs(archs), "archs")
        return tuple(archs)

    def _check(self, result, what):
        if result != 0:
            raise NVRTCError(f"{what}: {self._lib.nvrtcGetErrorString(result).decode()}")

    def __call__(self, source, name, options, output):
        lib = self._lib
        prog = ctypes.c_void_p()
        self._check(lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(),
                                           0, None, None), name)
        try:
            options = [*options, _INCLUDE_OPTION]
            opts = (ctypes.c_char_p * len(options))(*(o.encode() for o in options))
            result = lib.nvrtcCompileProgram(prog, len(options), opts)
            if result != 0:
                status = lib.nvrtcGetErrorString(result).decode()
                log = self._bytes(prog, "ProgramLog").decode(errors="replace")
                raise NVRTCError(f"{name}: {status}\n{log}")
            return self._bytes(prog, output)
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(prog))

    def _bytes(self, prog, what):
        """nvrtcGet<what>Size + nvrtcGet<what>: the log, the PTX (without its terminating
        NUL) or the cubin."""
        size = ctypes.c_size_t()
        self._check(getattr(self._lib, f"nvrtcGet{what}Size")(prog, ctypes.byref(size)), what)
        buf = ctypes.create_string_buffer(size.value)
        self._check(getattr(self._lib, f"nvrtcGet{what}")(prog, buf), what)
        return buf.raw if what == "CUBIN" else buf.value
