"""color.cu's linear kernels under the CPU emulation equal fn.brightness_contrast,
fn.brightness and fn.contrast on the CPU: random batches over layouts (per-frame arguments
on sequences), channel counts, input and output types (integers over their whole range,
floats with infinities and NaN), constant, per-sample and per-frame arguments, empty
samples."""

import cases_color
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.color import _color_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("op", sorted(cases_color.BC_OPS))
@pytest.mark.parametrize("seed", range(12))
def test_brightness_contrast_kernel_equals_cpu(op, seed):
    case = cases_color.linear_case(seed, op)
    gpu_cases.assert_same(cases_color.linear_kernel(gpu_cases.emulated, *case),
                          cases_color.linear_expected(*case))


def test_brightness_contrast_known_values():
    """Values stated by the operator, independent of the CPU kernel: uint8 200 * 1.5 - 10
    saturates, 3 * 1.5 - 10 < 0 gives 0; int16 halves round away from zero and saturate;
    float output keeps fractions."""
    x = [np.array([[[200], [100], [3]]], np.uint8)]
    case = (x, "HWC", "brightness", {"brightness": ("const", 1.5),
                                     "brightness_shift": ("const", -10 / 255)}, None)
    got = cases_color.linear_kernel(gpu_cases.emulated, *case)[0]
    np.testing.assert_array_equal(got.reshape(-1), [255, 140, 0])
    x = [np.array([[[1], [3], [-1], [-3], [20000], [-20000]]], np.int16)]
    case = (x, "HWC", "brightness", {"brightness": ("const", 2.5)}, None)
    got = cases_color.linear_kernel(gpu_cases.emulated, *case)[0]
    np.testing.assert_array_equal(got.reshape(-1), [3, 8, -3, -8, 32767, -32768])
    case = (x, "HWC", "brightness", {"brightness": ("const", 0.5)}, np.float32)
    got = cases_color.linear_kernel(gpu_cases.emulated, *case)[0]
    np.testing.assert_array_equal(got.reshape(-1), [0.5, 1.5, -0.5, -1.5, 10000, -10000])


def test_brightness_contrast_grid_stride():
    """More elements than MAX_BLOCKS_X blocks cover: the grid-stride loop reaches them all."""
    n = _color_gpu.BLOCK * _color_gpu.MAX_BLOCKS_X + 333
    x = [np.arange(n, dtype=np.int32).reshape(1, -1, 1)]
    case = (x, "HWC", "brightness", {"brightness": ("const", 2.0)}, None)
    got = cases_color.linear_kernel(gpu_cases.emulated, *case)[0]
    np.testing.assert_array_equal(got, x[0] * 2)


def test_linear_launch_validates():
    mats, offs = np.ones((2, 1, 1), np.float32), np.zeros((2, 1), np.float32)
    with pytest.raises(ValueError, match="3 parts but 2 matrices"):
        _color_gpu.linear_launch([(2, 2, 1), (2, 2, 1)], mats, offs, [1, 2], np.uint8,
                                 np.uint8)
    with pytest.raises(ValueError, match="equal parts"):
        _color_gpu.linear_launch([(3, 1, 1, 1)], mats[:1], offs[:1], [2], np.uint8, np.uint8)
    with pytest.raises(ValueError, match="no kernel from float64"):
        _color_gpu.linear_launch([(2, 2, 1)], mats[:1], offs[:1], None, np.float64, np.uint8)
    with pytest.raises(ValueError, match="maps 1 or 3 channels"):
        _color_gpu.linear_launch([(2, 2, 2)], np.ones((1, 2, 2)), np.zeros((1, 2)), None,
                                 np.uint8, np.uint8)
    with pytest.raises(ValueError, match="at most 65535 samples"):
        _color_gpu.linear_launch([(1, 1, 1)] * 65536, mats[:1], offs[:1], None, np.uint8,
                                 np.uint8)
