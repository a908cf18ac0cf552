"""fn.debayer on a real device equals its bilinear rule on the CPU; skipped without CuPy and
a CUDA device."""

import cases_image
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(12))
def test_debayer_on_device_equals_cpu(seed):
    cases_image.check_equal(cases_image.debayer_case(seed))
