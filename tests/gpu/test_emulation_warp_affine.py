"""warp_affine.cu under the CPU emulation equals fn.warp_affine on the CPU, bit for bit: images and
sequences of every supported type pair, each interpolation, fill value or clamped edge, output
sizes, and the matrix as an argument, argument input, second input or per frame."""

import cases_geometry
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.geometry import _warp_affine_gpu, warp_affine

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(30))
def test_warp_affine_kernel_equals_cpu(seed):
    case = cases_geometry.warp_case(seed)
    got, expected = cases_geometry.warp_compare(gpu_cases.emulated, warp_affine.WarpAffine, *case)
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("fill", [None, 17.0])
def test_warp_affine_empty_input_gives_fill(fill):
    """An empty input image warped into a given size: the fill value, or 0 without one."""
    samples = [np.zeros((0, 5, 3), np.uint8), np.arange(60, dtype=np.uint8).reshape(4, 5, 3)]
    kwargs = {"matrix": [1.0, 0.2, 0.5, 0.1, 1.0, -0.5], "size": [6.0, 7.0]}
    if fill is not None:
        kwargs["fill_value"] = fill
    got, expected = cases_geometry.warp_compare(
        gpu_cases.emulated, warp_affine.WarpAffine, samples, "HWC", [],
        lambda fn, x: fn.warp_affine(x, **kwargs))
    gpu_cases.assert_same(got, expected)
    assert (got[0] == (fill or 0)).all()


def test_warp_launch_validates():
    with pytest.raises(ValueError, match="does not warp uint8 to int16"):
        _warp_affine_gpu.launch([(2, 2, 3)], [(2, 2, 3)], np.uint8, np.int16, np.eye(2, 3), 1)
    with pytest.raises(ValueError, match="one matrix per sample"):
        _warp_affine_gpu.launch([(2, 2, 3)], [(2, 2, 3)], np.uint8, np.uint8,
                                np.zeros((2, 6)), 0)
    with pytest.raises(ValueError, match="same frames and channels"):
        _warp_affine_gpu.launch([(2, 2, 3)], [(2, 2, 1)], np.uint8, np.uint8, np.eye(2, 3), 0)
