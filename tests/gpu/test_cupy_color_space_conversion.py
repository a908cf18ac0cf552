"""color.cu's `color_space_u8` on a real device (CuPy, dali._gpu.modules) equals
fn.color_space_conversion on the CPU for every pair of colour spaces; skipped without CuPy
and a CUDA device."""

import cases_color
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("pair", cases_color.SPACE_PAIRS, ids=lambda p: f"{p[0].name}-{p[1].name}")
@pytest.mark.parametrize("seed", range(3))
def test_color_space_on_device_equals_cpu(pair, seed):
    case = cases_color.space_case(seed, *pair)
    gpu_cases.assert_same(cases_color.space_kernel(gpu_cases.on_device, *case, *pair),
                          cases_color.space_expected(*case, *pair))
