"""color.cu's `color_space_u8` under the CPU emulation equals fn.color_space_conversion on the
CPU for every pair of RGB, BGR, GRAY and YCbCr, on random uint8 batches (every value of each
channel occurs) over layouts, with empty samples."""

import cases_color
import emulate
import gpu_cases
import numpy as np
import pytest

from dali._types import DALIImageType as Img
from dali.ops.color import _color_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("pair", cases_color.SPACE_PAIRS, ids=lambda p: f"{p[0].name}-{p[1].name}")
@pytest.mark.parametrize("seed", range(3))
def test_color_space_kernel_equals_cpu(pair, seed):
    case = cases_color.space_case(seed, *pair)
    gpu_cases.assert_same(cases_color.space_kernel(gpu_cases.emulated, *case, *pair),
                          cases_color.space_expected(*case, *pair))


def test_color_space_known_values():
    """White and black map to Y 235 and 16 with neutral chroma; BGR swaps; gray is rounded
    luma."""
    x = [np.array([[[255, 255, 255], [0, 0, 0], [255, 0, 0]]], np.uint8)]
    got = cases_color.space_kernel(gpu_cases.emulated, x, "HWC", Img.RGB, Img.YCbCr)[0]
    np.testing.assert_array_equal(got[0, :2], [[235, 128, 128], [16, 128, 128]])
    got = cases_color.space_kernel(gpu_cases.emulated, x, "HWC", Img.RGB, Img.BGR)[0]
    np.testing.assert_array_equal(got, x[0][..., ::-1])
    got = cases_color.space_kernel(gpu_cases.emulated, x, "HWC", Img.RGB, Img.GRAY)[0]
    np.testing.assert_array_equal(got.reshape(-1), [255, 0, 76])


def test_space_launch_validates():
    with pytest.raises(ValueError, match="no conversion 'hsv'"):
        _color_gpu.space_launch([(2, 2, 3)], "hsv", 0)
    with pytest.raises(ValueError, match="multiples of 3 channels"):
        _color_gpu.space_launch([(2, 2, 2)], "to_gray", 0)
