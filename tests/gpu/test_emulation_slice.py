"""slice.cu under the CPU emulation equals fn.slice on the CPU: random batches over layouts,
element types, positional (normalized or absolute) or named windows, every border policy, fill
values and conversion (DALI's plain casts where it pads with per-channel values)."""

import cases_geometry
import emulate
import gpu_cases
import numpy as np
import pytest

from dali import types as dali_types
from dali.ops.geometry import _slice_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(24))
def test_slice_kernel_equals_cpu(seed):
    case = cases_geometry.slice_case(seed)
    got, expected = cases_geometry.slice_compare(gpu_cases.emulated, *case)
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("out", ["uint8", "float16", "float32"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.uint32,
                                   np.int16])
def test_slice_kernel_conversions_equal_cpu(dtype, out, per_channel):
    """Edge values of every conversion, saturating or (per-channel padding) by plain casts."""
    if np.dtype(dtype) == np.dtype(out):
        pytest.skip("no conversion")
    samples, layout, kwargs, inputs, layouts = cases_geometry.slice_edges_case(dtype,
                                                                               per_channel)
    kwargs["dtype"] = dali_types.to_dali_type(np.dtype(out))
    got, expected = cases_geometry.slice_compare(gpu_cases.emulated, samples, layout, kwargs,
                                                 inputs, layouts)
    gpu_cases.assert_same(got, expected)


def test_slice_descriptor_collapses_whole_axes():
    """Axes copied whole and contiguous merge; a cut axis and the channels (per-channel fill)
    stay apart; extent-1 axes are dropped."""
    launch = _slice_gpu.launch([(5, 1, 6, 3)], [(2, 1, 6, 3)], np.uint8, np.uint8,
                               anchors=[(1, 0, 0, 0)])
    row = launch.samples[0]
    assert row[3] == 2 and list(row[8:10]) == [2, 18] and list(row[8 + 3 * 8:10 + 3 * 8]) == \
        [18, 1]
    launch = _slice_gpu.launch([(5, 6, 3)], [(5, 6, 3)], np.uint8, np.uint8,
                               fill=np.zeros((1, 3), np.uint8), channel_axis=2)
    row = launch.samples[0]
    assert row[3] == 2 and list(row[8:10]) == [30, 3] and row[5] == 1


def test_slice_launch_validates():
    with pytest.raises(ValueError, match="does not convert"):
        _slice_gpu.launch([(2, 2)], [(2, 2)], np.float32, np.int16)
    with pytest.raises(ValueError, match="per-channel fill values"):
        _slice_gpu.launch([(2, 2, 3)], [(2, 2, 3)], np.uint8, np.uint8,
                          fill=np.zeros((1, 4), np.uint8), channel_axis=2)
    with pytest.raises(ValueError, match="collapses to 9 axes"):
        _slice_gpu.launch([(3,) * 9], [(2,) * 9], np.uint8, np.uint8)
    with pytest.raises(ValueError, match="at most 65535 samples"):
        _slice_gpu.launch([(1,)] * 65536, [(1,)] * 65536, np.uint8, np.uint8)


def test_slice_large_sample_uses_grid_stride():
    """More elements than MAX_BLOCKS_X blocks cover: the grid-stride loop reaches them all,
    the border policy included."""
    x = np.arange(_slice_gpu.BLOCK * _slice_gpu.MAX_BLOCKS_X + 555, dtype=np.uint16)
    launch = _slice_gpu.launch([x.shape], [(x.size + 10,)], x.dtype, x.dtype, anchors=[(-5,)],
                               policy=_slice_gpu.WRAP)
    got = cases_geometry.run_kernel(gpu_cases.emulated, [x], launch, [(x.size + 10,)], x.dtype)
    np.testing.assert_array_equal(got[0], np.take(x, np.arange(-5, x.size + 5), mode="wrap"))
