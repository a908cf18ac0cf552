"""color.cu's linear kernels on a real device (CuPy, dali._gpu.modules) equal
fn.brightness_contrast, fn.brightness and fn.contrast on the CPU; skipped without CuPy and a
CUDA device."""

import cases_color
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("op", sorted(cases_color.BC_OPS))
@pytest.mark.parametrize("seed", range(12))
def test_brightness_contrast_on_device_equals_cpu(op, seed):
    case = cases_color.linear_case(seed, op)
    gpu_cases.assert_same(cases_color.linear_kernel(gpu_cases.on_device, *case),
                          cases_color.linear_expected(*case))
