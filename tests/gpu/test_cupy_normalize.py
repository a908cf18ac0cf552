"""normalize.cu on a real device (CuPy, dali._gpu.modules) equals fn.normalize on the CPU bit
for bit; skipped without CuPy and a CUDA device."""

import cases_normalize
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(42))
def test_normalize_on_device_equals_cpu(seed):
    case = cases_normalize.normalize_case(seed)
    gpu_cases.assert_same(cases_normalize.normalize_kernel(gpu_cases.on_device, *case),
                          cases_normalize.normalize_expected(*case))
