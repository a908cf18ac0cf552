"""noise.cu on a real device (CuPy, dali._gpu.modules) against the noise operators' CPU kernel
with the same Philox key and sample ids; skipped without CuPy and a CUDA device.

Salt and pepper uses integer Philox words and comparisons only: bit for bit.  Gaussian and
shot noise call the device's double log, sqrt, cos, sin, exp and lgamma (CUDA's differ from
glibc's by up to 2 ULP): gaussian is compared to one float32 ULP of the value's scale (integers
+-1 where a value lies on a rounding tie); shot noise allows one element in a thousand to
differ, where an inversion sum or a PTRS acceptance test lay within rounding of its threshold.
"""

import cases_noise
import gpu_cases
import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("mode", cases_noise.MODES)
@pytest.mark.parametrize("seed", range(18))
def test_noise_on_device_equals_cpu(mode, seed):
    case = cases_noise.noise_case(seed, mode)
    got = cases_noise.noise_kernel(gpu_cases.on_device, *case)
    expected = cases_noise.noise_expected(*case)
    if mode == "salt_and_pepper":
        gpu_cases.assert_same(got, expected)
        return
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        if mode == "shot":
            assert g.size == 0 or (g == e).mean() >= 0.999
        elif e.dtype.kind == "f":
            scale = np.abs(e).max(initial=1.0) + 1.0
            np.testing.assert_allclose(g, e, rtol=2.0 ** -23, atol=2.0 ** -23 * scale)
        else:
            assert np.abs(g.astype(np.int64) - e.astype(np.int64)).max(initial=0) <= 1
