"""fn.element_extract and fn.sequence_rearrange's GPU copies (copy_samples.cu) on a real device
(CuPy, dali._gpu.modules) equal the CPU operators; skipped without CuPy and a CUDA device."""

import cases_frames
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(10))
def test_frame_copies_on_device_equal_cpu(seed):
    case = cases_frames.sequence_case(seed)
    got = cases_frames.element_extract_kernel(gpu_cases.on_device, *case)
    for g, e in zip(got, cases_frames.element_extract_expected(*case), strict=True):
        gpu_cases.assert_same(g, e)
    gpu_cases.assert_same(cases_frames.sequence_rearrange_kernel(gpu_cases.on_device, *case),
                          cases_frames.sequence_rearrange_expected(*case))
