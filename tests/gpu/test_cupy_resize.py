"""resize.cu on a real device (CuPy, dali._gpu.modules) equals fn.resize on the CPU bit for bit
(the cases of test_emulation_resize.py); skipped without CuPy and a CUDA device."""

import cases_resize
import gpu_cases
import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(48))
def test_resize_on_device_equals_cpu(seed):
    case = cases_resize.resize_case(seed)
    expected, call = cases_resize.resize_expected(*case)
    got, _ = cases_resize.resample_kernel(gpu_cases.on_device, case[0], call)
    gpu_cases.assert_same(got, expected)


def test_large_sample_on_device():
    x = np.arange(40 * 50 * 3, dtype=np.float32).reshape(40, 50, 3)
    expected, call = cases_resize.resize_expected([x], "HWC", {"size": [45.0, 2000.0]}, {})
    got, _ = cases_resize.resample_kernel(gpu_cases.on_device, [x], call)
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("name, seed", [("resize", 1), ("resize", 4), ("random_resized_crop", 0),
                                        ("resize_crop_mirror", 2), ("tensor_resize", 3)])
def test_gpu_pipeline_on_device_equals_cpu(name, seed):
    """The operators' run_gpu on device 0, end to end, equal to the CPU pipeline."""
    case = getattr(cases_resize, f"{name}_case")(seed)
    gpu = cases_resize.pipeline_outputs(name, *case, 0, iterations=2)
    cpu = cases_resize.pipeline_outputs(name, *case, None, iterations=2)
    for g_run, c_run in zip(gpu, cpu, strict=True):
        for g, c in zip(g_run, c_run, strict=True):
            gpu_cases.assert_same(g, c)
