"""slice.cu under the CPU emulation equals fn.transpose on the CPU: 1 to 6 dimensions, any
permutation, every element size, empty samples."""

import cases_geometry
import emulate
import gpu_cases
import pytest

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(24))
def test_transpose_kernel_equals_cpu(seed):
    case = cases_geometry.transpose_case(seed)
    got, expected = cases_geometry.transpose_compare(gpu_cases.emulated, *case)
    gpu_cases.assert_same(got, expected)
