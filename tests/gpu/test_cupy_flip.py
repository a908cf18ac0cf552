"""flip.cu on a real device (CuPy, dali._gpu.modules) equals fn.flip on the CPU; skipped
without CuPy and a CUDA device."""

import gpu_cases
import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(12))
def test_flip_on_device_equals_cpu(seed):
    case = gpu_cases.flip_case(seed)
    expected = gpu_cases.flip_expected(*case)
    got = gpu_cases.flip_kernel(gpu_cases.on_device, *case)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)
