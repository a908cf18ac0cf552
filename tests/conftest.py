import importlib.util

import numpy as np
import pytest


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
    for item in items:
        if item.get_closest_marker("gpu") is not None and not have_gpu:
            item.add_marker(skip_gpu)
        if "oracle" in item.keywords and not HAVE_ORACLE:
            item.add_marker(skip_oracle)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
