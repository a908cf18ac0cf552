"""Every `.cu` file under dali/ compiles with NVRTC for sm_80 and sm_90 (no GPU or driver
needed): through CuPy's binding when CuPy is installed, else the nvidia-cuda-nvrtc wheel; both
when both are there."""

import ctypes
import pathlib

import pytest

from dali._gpu import nvrtc

ROOT = pathlib.Path(__file__).resolve().parents[2] / "dali"
SOURCES = sorted(ROOT.rglob("*.cu"))
ARCHS = ("sm_80", "sm_90")

pytestmark = pytest.mark.skipif(
    nvrtc.available() is None,
    reason="no NVRTC: install CuPy (dali[gpu]) or the nvidia-cuda-nvrtc-cu12 wheel")


def test_sources_exist():
    assert {p.name for p in SOURCES} >= {"flip.cu", "crop_mirror_normalize.cu"}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_compiles(path, arch):
    ptx = nvrtc.compile_ptx(path.read_text(), str(path), arch)
    assert f".target sm_{arch[3:]}" in ptx
    for line in path.read_text().splitlines():       # every extern "C" kernel is in the PTX
        if line.startswith('extern "C" __global__ void '):
            name = line.split("void ", 1)[1].split("(")[0]
            assert f".entry {name}(" in ptx


def test_kernels_made_by_macros_are_in_the_ptx():
    path = ROOT / "ops" / "image" / "crop_mirror_normalize.cu"
    ptx = nvrtc.compile_ptx(path.read_text(), str(path), "sm_80")
    assert ptx.count(".entry cmn_") == 24


def test_compile_error_has_file_name_and_log():
    source = 'extern "C" __global__ void k(float* x) {\n  x[0] = undefined_name;\n}\n'
    with pytest.raises(nvrtc.NVRTCError) as info:
        nvrtc.compile_ptx(source, "dali/ops/broken.cu", "sm_80")
    message = str(info.value)
    assert "dali/ops/broken.cu(2): error" in message and "undefined_name" in message


@pytest.mark.skipif(nvrtc._library_path() is None, reason="no libnvrtc.so (wheel or system)")
def test_wheel_library_through_ctypes():
    """The ctypes path (used without CuPy) compiles and reports errors like CuPy's."""
    backend = nvrtc._CtypesNVRTC(ctypes.CDLL(nvrtc._library_path()))
    assert backend.version() >= (11, 0)
    path = ROOT / "ops" / "geometry" / "flip.cu"
    ptx = backend(path.read_text(), str(path), ["--gpu-architecture=compute_90"], "PTX")
    assert b".entry flip_8(" in ptx
    assert 80 in backend.supported_archs()
    with pytest.raises(nvrtc.NVRTCError, match=r"bad\.cu\(1\): error"):
        backend("__global__ void k() { nope; }", "bad.cu", ["--gpu-architecture=compute_80"],
                "PTX")


def test_options_keep_denormals_and_separate_roundings():
    """OPTIONS reach NVRTC: no flush-to-zero and no fused multiply-add in the code (the CPU
    kernels keep denormals and round a * b + c twice)."""
    source = ('extern "C" __global__ void k(const float* x, float* y, double* z) {\n'
              "  y[0] = x[0] * x[1] + x[2];\n  z[0] = (double)x[0];\n}\n")
    ptx = nvrtc.compile_ptx(source, "k.cu", "sm_80")
    assert "cvt.f64.f32" in ptx and ".ftz" not in ptx and "fma" not in ptx


def test_cubin_for_a_real_architecture():
    path = ROOT / "ops" / "geometry" / "flip.cu"
    assert nvrtc.compile_cubin(path.read_text(), str(path), "sm_90")[:4] == b"\x7fELF"
    assert 90 in nvrtc.supported_archs()
