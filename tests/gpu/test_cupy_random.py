"""random.cu on a real device (CuPy, dali._gpu.modules) against the random generators on the
CPU; skipped without CuPy and a CUDA device.

uniform, coin_flip and choice use integer Philox words and correctly rounded double
arithmetic only: bit for bit.  normal and beta call the device's double log, sqrt, cos, sin,
exp and log1p (CUDA's differ from glibc's by up to 2 ULP): normal is compared with a relative
tolerance of 1e-13 of the draw's scale (float32: one float ULP; integers: +-1 where a value
lies on a rounding tie), beta with 1e-10, allowing one element in a thousand to differ where
a Marsaglia-Tsang acceptance test lay within rounding of its threshold and took another round.
"""

import cases_math
import gpu_cases
import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("op", cases_math.RANDOM_OPS)
@pytest.mark.parametrize("seed", range(6))
def test_random_on_device_equals_cpu(op, seed):
    case = cases_math.random_case(seed, op)
    got, failed = cases_math.random_kernel(cases_math.on_device, case)
    expected = cases_math.random_expected(case)
    assert not failed.any()
    if op in ("uniform", "coin_flip", "choice"):
        gpu_cases.assert_same(got, expected)
        return
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        if op == "beta":
            close = np.isclose(g, e, rtol=1e-10 if e.dtype == np.float64 else 2e-7, atol=0)
            assert close.size == 0 or close.mean() >= 0.999
        elif e.dtype.kind == "f":
            scale = np.abs(e).max(initial=1.0) + 1.0
            rtol = 1e-13 if e.dtype == np.float64 else 2.0 ** -23
            np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol * scale)
        else:
            assert np.abs(g.astype(np.int64) - e.astype(np.int64)).max(initial=0) <= 1
