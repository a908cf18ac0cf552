"""erase.cu on a real device (CuPy, dali._gpu.modules) equals fn.erase on the CPU; skipped
without CuPy and a CUDA device."""

import cases_geometry
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(30))
def test_erase_on_device_equals_cpu(seed):
    case = cases_geometry.erase_case(seed)
    got, expected = cases_geometry.erase_compare(gpu_cases.on_device, *case)
    gpu_cases.assert_same(got, expected)
