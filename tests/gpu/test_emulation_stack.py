"""cat.cu under the CPU emulation equals fn.stack on the CPU: 1 to 4 inputs of 1 to 4
dimensions, any axis (by index or name), every element size, empty parts."""

import cases_geometry
import emulate
import gpu_cases
import pytest

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(24))
def test_stack_kernel_equals_cpu(seed):
    case = cases_geometry.join_case(seed, stack=True)
    got, expected = cases_geometry.join_compare(gpu_cases.emulated, True, *case)
    gpu_cases.assert_same(got, expected)
