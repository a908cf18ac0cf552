"""fn.experimental.warp_perspective on a real device equals it on the CPU (NVRTC compiles
without FMA contraction, fmaf where the CPU kernel fuses); skipped without CuPy and a CUDA
device."""

import cases_image
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(24))
def test_warp_perspective_on_device_equals_cpu(seed):
    cases_image.check_equal(cases_image.warp_perspective_case(seed))
