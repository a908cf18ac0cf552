"""flip.cu under the CPU emulation equals fn.flip on the CPU: random batches over layouts,
element sizes, shapes and per-sample flags."""

import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.geometry import _flip_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(12))
def test_flip_kernel_equals_cpu(seed):
    case = gpu_cases.flip_case(seed)
    expected = gpu_cases.flip_expected(*case)
    got = gpu_cases.flip_kernel(gpu_cases.emulated, *case)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


def test_flip_large_sample_uses_grid_stride():
    """More elements than MAX_BLOCKS_X blocks cover: the grid-stride loop reaches them all."""
    x = np.arange(_flip_gpu.BLOCK * _flip_gpu.MAX_BLOCKS_X + 777, dtype=np.uint8).reshape(1, -1, 1)
    got = gpu_cases.flip_kernel(gpu_cases.emulated, [x], "HWC", [1], [0], [0])
    np.testing.assert_array_equal(got[0], x[:, ::-1])


def test_flip_descriptor_collapses_axes():
    launch = _flip_gpu.launch([(4, 1, 5, 3)], np.array([[1, 1, 1, 0]], np.uint8), 1)
    row = launch.samples[0]
    ndim = row[3]
    assert ndim == 2                          # (4*5 flipped, 3 kept)
    assert list(row[4:4 + ndim]) == [20, 3]
    assert list(row[4 + _flip_gpu.DIMS:4 + _flip_gpu.DIMS + ndim]) == [-3, 1]
    assert row[0] == 19 * 3                   # the last row of the flipped axes first


def test_flip_launch_rejects_bad_element_size():
    with pytest.raises(ValueError, match="3-byte"):
        _flip_gpu.launch([(2, 2, 1)], np.zeros((1, 3), np.uint8), 3)
