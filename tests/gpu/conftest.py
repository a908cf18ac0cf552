import os
import sys

import pytest

# the harness (emulate.py, emulated_device.py) and the cases shared by the emulation and CuPy
# tests (gpu_cases.py)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import emulate  # noqa: E402
import emulated_device  # noqa: E402

from dali._gpu import runtime  # noqa: E402


@pytest.fixture
def emulated_gpu():
    """GPU pipelines run on the emulated device (tests/gpu/emulated_device.py) while the test
    runs; yields the device of device_id 0.  Skips without g++."""
    if not emulate.AVAILABLE:
        pytest.skip("the CUDA emulation needs g++")
    with runtime.use_device_factory(emulated_device.EmulatedDevice):
        yield runtime.device(0)
