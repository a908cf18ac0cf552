"""resize.cu on a real device (CuPy, dali._gpu.modules) equals fn.resize on the CPU bit for bit
(the cases of test_emulation_resize.py); skipped without CuPy and a CUDA device."""

import cases_resize
import gpu_cases
import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(48))
def test_resize_on_device_equals_cpu(seed):
    case = cases_resize.resize_case(seed)
    expected, call = cases_resize.resize_expected(*case)
    got, _ = cases_resize.resample_kernel(gpu_cases.on_device, case[0], call)
    gpu_cases.assert_same(got, expected)


def test_large_sample_on_device():
    x = np.arange(40 * 50 * 3, dtype=np.float32).reshape(40, 50, 3)
    expected, call = cases_resize.resize_expected([x], "HWC", {"size": [45.0, 2000.0]}, {})
    got, _ = cases_resize.resample_kernel(gpu_cases.on_device, [x], call)
    gpu_cases.assert_same(got, expected)
