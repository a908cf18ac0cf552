"""multi_paste.cu under the emulated device equals fn.multi_paste on the CPU: one batch with
in_ids or several batches, absolute and relative anchors and shapes, overlapping and empty
regions, samples without regions, element sizes 1, 2 and 4, other output types (a launch of
cast.cu after the paste) and an empty batch; and the launch's checks."""

import cases_image
import numpy as np
import pytest

from dali.ops.image import _multi_paste_gpu


@pytest.mark.parametrize("seed", range(16))
def test_multi_paste_equals_cpu(emulated_gpu, seed):
    cases_image.check_equal(cases_image.multi_paste_case(seed))
    assert any(k.startswith("multi_paste_") for k in emulated_gpu.launches)


@pytest.mark.parametrize("seed", range(3))
def test_multi_paste_relative_equals_cpu(emulated_gpu, seed):
    cases_image.check_equal(cases_image.multi_paste_relative_case(seed))
    assert "multi_paste_1" in emulated_gpu.launches


def test_multi_paste_converts_with_cast(emulated_gpu):
    cases_image.check_equal(cases_image.multi_paste_case(9))      # int16 -> uint8
    assert emulated_gpu.launches[-2:] == ["multi_paste_2", "cast_i16_u8"]


def test_multi_paste_empty_batch(emulated_gpu):
    cases_image.check_equal(cases_image.multi_paste_case(1), empty=True)
    assert not any(k.startswith("multi_paste_") for k in emulated_gpu.launches)


def test_multi_paste_launch_checks():
    shapes, offsets = [np.array([[4, 4, 3]])], [np.array([0])]
    row = np.array([[0, 0, 1, 1, 0, 0, 3, 3]])
    launch = _multi_paste_gpu.launch(row, [0, 1], [[5, 5, 3]], shapes, offsets, 1, [0])
    assert launch.kernel == "multi_paste_1"
    assert launch.regions[0].tolist() == [0, 1 * 12 + 1 * 3, 12, 0, 0, 3, 3]
    with pytest.raises(ValueError, match="inside their source"):
        _multi_paste_gpu.launch(row + [0, 0, 1, 0, 0, 0, 0, 0], [0, 1], [[5, 5, 3]], shapes,
                                offsets, 1, [0])
    with pytest.raises(ValueError, match="inside their output"):
        _multi_paste_gpu.launch(row, [0, 1], [[2, 5, 3]], shapes, offsets, 1, [0])
    with pytest.raises(ValueError, match="3-byte"):
        _multi_paste_gpu.launch(row, [0, 1], [[5, 5, 3]], shapes, offsets, 3, [0])
