"""copy_samples.cu on a real device (CuPy, dali._gpu.modules) equals the CPU's
`_conditional.split`, `_conditional.merge` and fn.permute_batch; skipped without CuPy and a CUDA
device."""

import cases_copy_samples as cases
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(15))
def test_split_on_device_equals_cpu(seed):
    expected, got = cases.split_run(gpu_cases.on_device, *cases.batch_case(seed))
    for g, e in zip(got, expected, strict=True):
        gpu_cases.assert_same(g, e)


@pytest.mark.parametrize("seed", range(15))
def test_merge_on_device_equals_cpu(seed):
    expected, got = cases.merge_run(gpu_cases.on_device, *cases.batch_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(15))
def test_permute_batch_on_device_equals_cpu(seed):
    samples, _ = cases.batch_case(seed)
    expected, got = cases.permute_run(gpu_cases.on_device, samples, seed)
    gpu_cases.assert_same(got, expected)
