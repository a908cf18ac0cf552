"""slice.cu under the CPU emulation equals fn.pad on the CPU: random batches over layouts,
element types (bool included), padded axes by index or name, shape, align and fill values."""

import cases_geometry
import emulate
import gpu_cases
import pytest

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(24))
def test_pad_kernel_equals_cpu(seed):
    case = cases_geometry.pad_case(seed)
    got, expected = cases_geometry.pad_compare(gpu_cases.emulated, *case)
    gpu_cases.assert_same(got, expected)
