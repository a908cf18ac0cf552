"""subscript.cu on a real device (CuPy, dali._gpu.modules) equals the CPU copies of `x[...]`;
skipped without CuPy and a CUDA device."""

import cases_subscript
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(40))
def test_subscript_on_device_equals_cpu(seed):
    case = cases_subscript.subscript_case(seed)
    gpu_cases.assert_same(cases_subscript.subscript_kernel(gpu_cases.on_device, *case),
                          cases_subscript.subscript_expected(*case))
