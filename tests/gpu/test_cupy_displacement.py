"""fn.sphere and fn.water on a real device equal them on the CPU (water's sines come from the
host, the rest is float32 arithmetic without FMA and correctly rounded square roots and
divisions); skipped without CuPy and a CUDA device."""

import cases_image
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("op", ["sphere", "water"])
@pytest.mark.parametrize("seed", range(8))
def test_displacement_on_device_equals_cpu(op, seed):
    cases_image.check_equal(cases_image.displace_case(seed, op))
