"""remap.cu on a real device (CuPy, dali._gpu.modules) equals the NumPy reference of its float32
arithmetic (the cases of test_emulation_remap.py); skipped without CuPy and a CUDA device."""

import cases_remap as cases
import numpy as np
import pytest
from gpu_cases import on_device

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(16))
def test_remap_on_device_equals_reference(seed):
    case = cases.case(seed)
    for g, e in zip(cases.kernel(on_device, *case), cases.reference(*case), strict=True):
        np.testing.assert_array_equal(g, e)
