"""fn.grid_mask on a real device equals fn.grid_mask on the CPU (the grid constants come from
the CPU kernel, the rest is float32 arithmetic without FMA); skipped without CuPy and a CUDA
device."""

import cases_image
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(12))
def test_grid_mask_on_device_equals_cpu(seed):
    cases_image.check_equal(cases_image.grid_mask_case(seed))
