"""rank_filter.cu on a real device (CuPy, dali._gpu.modules) equals the NumPy reference of
CV-CUDA's MedianBlur and Morphology (the cases of test_emulation_rank_filter.py); skipped
without CuPy and a CUDA device."""

import cases_rank_filter as cases
import numpy as np
import pytest
from gpu_cases import on_device

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(10))
def test_median_on_device_equals_reference(seed):
    samples, layout, windows = cases.median_case(seed)
    got = cases.median_kernel(on_device, samples, layout, windows)
    for g, e in zip(got, cases.median_reference(samples, layout, windows), strict=True):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("seed", range(15))
def test_morphology_on_device_equals_reference(seed):
    samples, layout, dilate, masks, anchors, iterations, border = cases.morphology_case(seed)
    got = cases.morphology_kernel(on_device, samples, layout, dilate, masks, anchors,
                                  iterations, border)
    expected = cases.morphology_reference(samples, layout, dilate, masks, anchors, iterations,
                                          border)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)
