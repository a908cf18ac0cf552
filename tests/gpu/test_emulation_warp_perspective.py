"""warp_perspective.cu under the emulated device equals fn.experimental.warp_perspective on
the CPU, bit for bit: uint8, uint16, int16 and float images of 1-4 channels (the fixed-point
and the float algorithms), HWC, HW and CHW, NN and linear, every border, matrices constant,
per sample (argument input) or as the second input (read on the host), output sizes,
inverse_map and pixel_origin; an empty batch; the launch's checks."""

import cases_image
import numpy as np
import pytest

from dali.ops.geometry import _warp_perspective_gpu


@pytest.mark.parametrize("seed", range(24))
def test_warp_perspective_equals_cpu(emulated_gpu, seed):
    cases_image.check_equal(cases_image.warp_perspective_case(seed))
    assert any(k.startswith("warp_perspective_") for k in emulated_gpu.launches)


def test_warp_perspective_empty_batch(emulated_gpu):
    cases_image.check_equal(cases_image.warp_perspective_case(1), empty=True)
    assert not any(k.startswith("warp_perspective_") for k in emulated_gpu.launches)


def test_warp_perspective_launch_checks():
    row = np.array([[1, 6, 0, 2, 3, 1, 4, 5, 0, 0]])
    launch = _warp_perspective_gpu.launch(row, np.uint16, [0, 100], [0, 40], 1, 1)
    assert launch.kernel == "warp_perspective_u16"
    assert launch.images[0].tolist() == [53, 20, 2, 3, 1, 4, 5, 0, 0]
    assert launch.grid == (1, 1, 1)
    with pytest.raises(ValueError, match="invalid image rows"):
        _warp_perspective_gpu.launch(row, np.uint16, [0, 100], [0, 40], 0, 1)
    with pytest.raises(ValueError, match="multiples"):
        _warp_perspective_gpu.launch(row + [0, 1, 0, 0, 0, 0, 0, 0, 0, 0], np.uint16,
                                     [0, 100], [0, 40], 1, 1)
    with pytest.raises(ValueError, match="int32"):
        _warp_perspective_gpu.launch(row, np.int32, [0, 100], [0, 40], 1, 1)
    empty = _warp_perspective_gpu.launch(np.zeros((0, 10)), np.uint8, [], [], 1, 1)
    assert empty.grid[1] == 0 and empty.images.shape == (1, _warp_perspective_gpu.FIELDS)
