"""slice.cu under the CPU emulation equals fn.crop on the CPU: random batches over layouts
(images, volumes, sequences), element types, window sizes and per-sample positions, the three
out-of-bounds policies, one or per-channel fill values and conversion to uint8, float16 or
float."""

import cases_geometry
import emulate
import gpu_cases
import pytest

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(24))
def test_crop_kernel_equals_cpu(seed):
    case = cases_geometry.crop_case(seed)
    got, expected = cases_geometry.crop_compare(gpu_cases.emulated, *case)
    gpu_cases.assert_same(got, expected)
