"""cat.cu on a real device (CuPy, dali._gpu.modules) equals fn.stack on the CPU; skipped
without CuPy and a CUDA device."""

import cases_geometry
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(24))
def test_stack_on_device_equals_cpu(seed):
    case = cases_geometry.join_case(seed, stack=True)
    got, expected = cases_geometry.join_compare(gpu_cases.on_device, True, *case)
    gpu_cases.assert_same(got, expected)
