import importlib.util
import os
import sys

import numpy as np
import pytest

# the GPU harness (tests/gpu: emulate.py, emulated_device.py, the shared cases)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu"))


def _have_oracle():
    try:
        return importlib.util.find_spec("nvidia.dali") is not None
    except ModuleNotFoundError:
        return False


HAVE_ORACLE = _have_oracle()


def pytest_collection_modifyitems(config, items):
    have_gpu = False
    try:
        import cupy

        have_gpu = cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        have_gpu = False
    skip_gpu = pytest.mark.skip(reason="needs CuPy and a CUDA device")
    skip_oracle = pytest.mark.skip(reason="real NVIDIA DALI (nvidia-dali-cuda120) not installed")
    if os.environ.get("DALI_TEST_DEVICE") == "cuda":        # the tests that use a device only
        uses = [i.get_closest_marker("gpu") is not None or "emulated_gpu" in i.fixturenames
                for i in items]
        config.hook.pytest_deselected(items=[i for i, u in zip(items, uses, strict=True) if not u])
        items[:] = [i for i, u in zip(items, uses, strict=True) if u]
    for item in items:
        if item.get_closest_marker("gpu") is not None and not have_gpu:
            item.add_marker(skip_gpu)
        if "oracle" in item.keywords and not HAVE_ORACLE:
            item.add_marker(skip_oracle)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def emulated_gpu():
    """GPU pipelines run on the emulated device (tests/gpu/emulated_device.py) while the test
    runs; yields the device of device_id 0.  Skips without g++.

    With DALI_TEST_DEVICE=cuda they run on CUDA device 0 instead (RecordingCupyDevice), and
    skip without CuPy and a device: the same tests, end to end on a real GPU."""
    import emulate
    import emulated_device

    from dali import _gpu
    from dali._gpu import runtime

    factory = emulated_device.EmulatedDevice
    if os.environ.get("DALI_TEST_DEVICE") == "cuda":
        if not _gpu.cupy_available() or _gpu.device_count() == 0:
            pytest.skip("DALI_TEST_DEVICE=cuda needs CuPy and a CUDA device")
        factory = emulated_device.RecordingCupyDevice
    elif not emulate.AVAILABLE:
        pytest.skip("the CUDA emulation needs g++")
    with runtime.use_device_factory(factory):
        yield runtime.device(0)
