"""convolution.cu on a real device (CuPy, dali._gpu.modules) equals fn.gaussian_blur,
fn.laplacian and fn.filter on the CPU bit for bit; skipped without CuPy and a CUDA device."""

import cases_filters
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(20))
def test_gaussian_blur_on_device_equals_cpu(seed):
    expected, got = cases_filters.gaussian_run(gpu_cases.on_device,
                                               *cases_filters.gaussian_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(18))
def test_laplacian_on_device_equals_cpu(seed):
    expected, got = cases_filters.laplacian_run(gpu_cases.on_device,
                                                *cases_filters.laplacian_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(20))
def test_filter_on_device_equals_cpu(seed):
    expected, got = cases_filters.filter_run(gpu_cases.on_device, *cases_filters.filter_case(seed))
    gpu_cases.assert_same(got, expected)
