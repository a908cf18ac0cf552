"""crop_mirror_normalize.cu on a real device (CuPy, dali._gpu.modules) equals
fn.crop_mirror_normalize on the CPU bit for bit; skipped without CuPy and a CUDA device."""

import gpu_cases
import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(24))
def test_cmn_on_device_equals_cpu(seed):
    case = gpu_cases.cmn_case(seed)
    expected = gpu_cases.cmn_expected(*case)
    got = gpu_cases.cmn_kernel(gpu_cases.on_device, *case)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)
