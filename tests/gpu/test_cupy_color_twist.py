"""color.cu's linear kernels on a real device (CuPy, dali._gpu.modules) equal fn.color_twist,
fn.hsv, fn.hue and fn.saturation on the CPU; skipped without CuPy and a CUDA device."""

import cases_color
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("op", sorted(cases_color.TWIST_OPS))
@pytest.mark.parametrize("seed", range(15))
def test_color_twist_on_device_equals_cpu(op, seed):
    case = cases_color.linear_case(seed, op)
    gpu_cases.assert_same(cases_color.linear_kernel(gpu_cases.on_device, *case),
                          cases_color.linear_expected(*case))
