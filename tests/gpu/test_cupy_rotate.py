"""warp_affine.cu on a real device (CuPy, dali._gpu.modules) equals fn.rotate on the CPU;
skipped without CuPy and a CUDA device."""

import cases_geometry
import gpu_cases
import pytest

from dali.ops.geometry import rotate

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(30))
def test_rotate_on_device_equals_cpu(seed):
    case = cases_geometry.rotate_case(seed)
    got, expected = cases_geometry.warp_compare(gpu_cases.on_device, rotate.Rotate, *case)
    gpu_cases.assert_same(got, expected)
