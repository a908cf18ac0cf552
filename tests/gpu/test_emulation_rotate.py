"""warp_affine.cu under the CPU emulation equals fn.rotate on the CPU, bit for bit: images and
sequences of every supported type pair, each interpolation, fill value or clamped edge, output
sizes, and the angle constant, per sample or per frame."""

import cases_geometry
import emulate
import gpu_cases
import pytest

from dali.ops.geometry import rotate

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(30))
def test_rotate_kernel_equals_cpu(seed):
    case = cases_geometry.rotate_case(seed)
    got, expected = cases_geometry.warp_compare(gpu_cases.emulated, rotate.Rotate, *case)
    gpu_cases.assert_same(got, expected)
