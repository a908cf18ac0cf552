"""boxes.cu and coords.cu under the CPU emulation equal fn.bb_flip, fn.coord_flip and
fn.coord_transform on the CPU bit for bit: random batches with empty samples, 2-D and 3-D
boxes, ltrb and xywh, flags and centres constant or per sample, layouts, element types,
matrices constant, per sample or per frame (sequences and repeated inputs)."""

import cases_boxes
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.detection import _boxes_gpu
from dali.ops.geometry import _coords_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(16))
def test_bb_flip_kernel_equals_cpu(seed):
    expected, got = cases_boxes.bb_flip_run(gpu_cases.emulated, *cases_boxes.bb_flip_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(16))
def test_coord_flip_kernel_equals_cpu(seed):
    expected, got = cases_boxes.coord_flip_run(gpu_cases.emulated,
                                               *cases_boxes.coord_flip_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(24))
def test_coord_transform_kernel_equals_cpu(seed):
    expected, got = cases_boxes.coord_transform_run(gpu_cases.emulated,
                                                    *cases_boxes.coord_transform_case(seed))
    gpu_cases.assert_same(got, expected)


def test_coord_transform_repeats_a_plain_input_per_frame():
    """Per-frame matrices on an input that is not a sequence: every frame of the output reads
    the whole input sample (the same source offset)."""
    x = [np.arange(6, dtype=np.float32).reshape(3, 2)]
    m = [np.stack([np.eye(2, dtype=np.float32) * k for k in (1, 2, 3)])]
    expected, got = cases_boxes.coord_transform_run(gpu_cases.emulated, x, None, {}, {"M": m},
                                                    True)
    gpu_cases.assert_same(got, expected)
    assert got[0].shape == (3, 3, 2)
    np.testing.assert_array_equal(got[0][2], x[0] * 3)


def test_bb_flip_launch_offsets_and_flags():
    launch = _boxes_gpu.bb_flip(4, [2, 0, 1], [1, 0, 1], 0, True, dst_offsets=[64, 0, 96])
    assert launch.samples.tolist() == [[0, 16, 2, 1, 0], [8, 0, 0, 0, 0], [8, 24, 1, 1, 0]]
    assert launch.grid == (1, 3, 1) and int(launch.ltrb) == 1
    assert _boxes_gpu.bb_flip(4, [], [], [], False) is None


@pytest.mark.parametrize("call, message", [
    (lambda: _boxes_gpu.bb_flip(5, [1], 1, 0, False), "4 or 6 coordinates, not 5"),
    (lambda: _boxes_gpu.bb_flip(4, [1], 1, 0, False, src_offsets=[2]), "multiples of 4"),
    (lambda: _coords_gpu.coord_flip([2], 4, {}, {}, {}), "up to 3 columns"),
    (lambda: _coords_gpu.coord_transform(np.zeros((1, 2, 3), np.float32), [4], 2, None, None,
                                         np.int8, np.int8), "from int8 to int8"),
    (lambda: _coords_gpu.coord_transform(np.zeros((1, 2, 3), np.float32), [4], 2, None, None,
                                         np.uint8, np.int16), "from uint8 to int16"),
    (lambda: _coords_gpu.coord_transform(np.zeros((2, 2, 3), np.float32), [4], 2, [3], None,
                                         np.float32, np.float32), r"one per part \(3\), not 2"),
])
def test_launch_helpers_reject(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("seed", range(18))
def test_box_encoder_kernels_equal_cpu(seed):
    """Bit for bit under the emulation (the same logf as the CPU kernel's)."""
    expected, got = cases_boxes.box_encoder_run(gpu_cases.emulated,
                                                *cases_boxes.box_encoder_case(seed))
    for g, e in zip(got, expected, strict=True):
        gpu_cases.assert_same(g, e)


def test_box_encoder_launch():
    enc = _boxes_gpu.box_encoder([2, 0, 3], [2, 5, 6], 10, 0.5, True, 2.0, [0] * 4, [1] * 4)
    assert enc.samples[:, :5].tolist() == [[0, 0, 1, 2, 0], [8, 2, 1, 0, 2], [8, 7, 2, 3, 2]]
    assert enc.samples[:, 5:].tolist() == [[0, 0], [40, 10], [80, 20]]
    assert enc.forced == 5 and enc.force.grid == (1, 3, 1) and int(enc.offset) == 1
    assert _boxes_gpu.box_encoder([1], [1], 0, 0.5, False, 1.0, [0] * 4, [1] * 4) is None
    with pytest.raises(ValueError, match="every box needs a label"):
        _boxes_gpu.box_encoder([3], [2], 4, 0.5, False, 1.0, [0] * 4, [1] * 4)
