"""cast.cu on a real device (CuPy, dali._gpu.modules) equals fn.cast on the CPU for all 144
pairs of types; skipped without CuPy and a CUDA device."""

import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("src", gpu_cases.CAST_TYPES, ids=str)
def test_cast_on_device_equals_cpu(src):
    samples = gpu_cases.cast_case(7, src)
    for dst in gpu_cases.CAST_TYPES:
        gpu_cases.assert_same(gpu_cases.cast_kernel(gpu_cases.on_device, samples, dst),
                              gpu_cases.cast_expected(samples, dst))
