"""dali._gpu: CuPy is never imported by `import dali`, and asking for the GPU without CuPy or
a device is one clear error saying what to install."""

import os
import subprocess
import sys

import pytest

from dali import _gpu
from dali._gpu import modules


def test_import_dali_does_not_import_cupy():
    code = "import sys, dali, dali.fn; print('cupy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.skipif(_gpu.device_count() > 0, reason="a CUDA device is present")
def test_require_without_device_says_what_to_install():
    with pytest.raises(_gpu.GPUUnavailableError) as info:
        _gpu.require("fn.flip")
    message = str(info.value)
    assert message.startswith("fn.flip needs")
    assert 'pip install "dali[gpu]"' in message and "cupy-cuda13x" in message


@pytest.mark.skipif(_gpu.device_count() > 0, reason="a CUDA device is present")
def test_kernel_without_device_raises_before_compiling():
    with pytest.raises(_gpu.GPUUnavailableError, match="flip.cu"):
        modules.kernel(os.path.join(os.path.dirname(_gpu.__file__), "x", "flip.py"), "flip_1")


def test_source_path():
    assert modules.source_path("/a/geometry/flip.py") == "/a/geometry/flip.cu"
    assert modules.source_path("/a/geometry/_flip_gpu.py") == "/a/geometry/flip.cu"
    assert modules.source_path("/a/image/x.cu") == "/a/image/x.cu"


@pytest.mark.gpu
def test_require_with_device_returns_cupy():
    cupy = _gpu.require("test")
    assert cupy.cuda.runtime.getDeviceCount() >= 1
    with pytest.raises(_gpu.GPUUnavailableError, match="device_id 4096"):
        _gpu.require("test", 4096)
