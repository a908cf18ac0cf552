"""The audio kernels on a real device (CuPy, dali._gpu.modules) equal the CPU operators;
skipped without CuPy and a CUDA device."""

import cases_signal
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(30))
def test_preemphasis_on_device_equals_cpu(seed):
    expected, got = cases_signal.preemphasis_run(gpu_cases.on_device,
                                                 *cases_signal.preemphasis_case(seed))
    gpu_cases.assert_same(got, expected)
