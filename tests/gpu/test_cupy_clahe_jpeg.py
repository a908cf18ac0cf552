"""fn.clahe (clahe.cu; RGB with luma_only on the host) and fn.jpeg_compression_distortion
(computed on the host, uploaded) with device="gpu" on a real device equal them on the CPU;
skipped without CuPy and a CUDA device."""

import cases_image
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(12))
def test_clahe_on_device_equals_cpu(seed):
    cases_image.check_equal(cases_image.clahe_case(seed))


@pytest.mark.parametrize("seed", range(2))
def test_jpeg_compression_distortion_on_device_equals_cpu(seed):
    cases_image.check_equal(cases_image.jpeg_distortion_case(seed))
