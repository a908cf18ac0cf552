"""jitter.cu under the CPU emulation equals fn.jitter's CPU kernel with the same Philox key and
sample ids: uint8 and float32 images of 1 to 4 channels, NN and linear, masks, fills, degrees,
empty samples."""

import cases_jitter
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.image import _jitter_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(16))
def test_jitter_kernel_equals_cpu(seed):
    case = cases_jitter.jitter_case(seed)
    gpu_cases.assert_same(cases_jitter.jitter_kernel(gpu_cases.emulated, *case),
                          cases_jitter.jitter_expected(*case))


def test_jitter_degree_one_keeps_the_image():
    """nDegree 1 moves no pixel (r = 0 - 0); a zero mask copies."""
    x = [np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)] * 2
    got = cases_jitter.jitter_kernel(gpu_cases.emulated, x, np.int32([1, 0]), 0, 0.0, 1, 12345,
                                     np.int64([0, 1]))
    np.testing.assert_array_equal(got[0], x[0])
    np.testing.assert_array_equal(got[1], x[1])


def test_jitter_launch_validates():
    with pytest.raises(ValueError, match="no kernel for int16"):
        _jitter_gpu.launch([(2, 2, 3)], [1], [0], np.int16)
    with pytest.raises(ValueError, match=r"\(H, W, C\)"):
        _jitter_gpu.launch([(2, 2)], [1], [0], np.uint8)
