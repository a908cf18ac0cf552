"""jitter.cu on a real device (CuPy, dali._gpu.modules) equals fn.jitter's CPU kernel with the
same Philox key and sample ids; skipped without CuPy and a CUDA device."""

import cases_jitter
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(16))
def test_jitter_on_device_equals_cpu(seed):
    case = cases_jitter.jitter_case(seed)
    gpu_cases.assert_same(cases_jitter.jitter_kernel(gpu_cases.on_device, *case),
                          cases_jitter.jitter_expected(*case))
