"""fn.multi_paste on a real device equals fn.multi_paste on the CPU; skipped without CuPy and
a CUDA device."""

import cases_image
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(16))
def test_multi_paste_on_device_equals_cpu(seed):
    cases_image.check_equal(cases_image.multi_paste_case(seed))


@pytest.mark.parametrize("seed", range(3))
def test_multi_paste_relative_on_device_equals_cpu(seed):
    cases_image.check_equal(cases_image.multi_paste_relative_case(seed))
