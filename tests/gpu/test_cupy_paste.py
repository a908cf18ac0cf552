"""fn.paste on a real device equals fn.paste on the CPU; skipped without CuPy and a CUDA
device."""

import cases_image
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(10))
def test_paste_on_device_equals_cpu(seed):
    cases_image.check_equal(cases_image.paste_case(seed))
