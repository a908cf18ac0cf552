"""The audio kernels on a real device (CuPy, dali._gpu.modules) equal the CPU operators;
skipped without CuPy and a CUDA device."""

import cases_signal
import gpu_cases
import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(30))
def test_preemphasis_on_device_equals_cpu(seed):
    expected, got = cases_signal.preemphasis_run(gpu_cases.on_device,
                                                 *cases_signal.preemphasis_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(30))
def test_to_decibels_on_device_equals_cpu(seed):
    """Bit for bit, except where the cut-off is below FLT_MIN (CUDA's log10f, within 2 ulp of
    the C library's)."""
    samples, kwargs = cases_signal.decibels_case(seed)
    expected, got = cases_signal.decibels_run(gpu_cases.on_device, samples, kwargs)
    if kwargs["cutoff_db"] / kwargs["multiplier"] > -37:
        gpu_cases.assert_same(got, expected)
    else:
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_array_max_ulp(g, e, maxulp=2)


@pytest.mark.parametrize("seed", range(24))
def test_mel_filter_bank_on_device_equals_cpu(seed):
    expected, got = cases_signal.mel_run(gpu_cases.on_device, *cases_signal.mel_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(16))
def test_mfcc_on_device_equals_cpu(seed):
    expected, got = cases_signal.mfcc_run(gpu_cases.on_device, *cases_signal.mfcc_case(seed))
    gpu_cases.assert_same(got, expected)
