"""one_hot.cu on a real device (CuPy, dali._gpu.modules) equals fn.one_hot on the CPU;
skipped without CuPy and a CUDA device."""

import cases_one_hot
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(30))
def test_one_hot_on_device_equals_cpu(seed):
    case = cases_one_hot.one_hot_case(seed)
    gpu_cases.assert_same(cases_one_hot.one_hot_kernel(gpu_cases.on_device, *case),
                          cases_one_hot.one_hot_expected(*case))
