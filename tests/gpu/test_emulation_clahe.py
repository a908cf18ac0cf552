"""clahe.cu under the emulated device equals fn.clahe on the CPU, bit for bit: grayscale and
RGB (luma_only=False) images, tile grids that do or do not divide the images (mirrored
extensions), grids larger than the image, clip limits with and without clipping, empty
samples and an empty batch; RGB with luma_only is computed on the host (no kernel)."""

import cases_image
import numpy as np
import pytest

from dali.ops.color import _clahe_gpu


@pytest.mark.parametrize("seed", range(12))
def test_clahe_equals_cpu(emulated_gpu, seed):
    cases_image.check_equal(cases_image.clahe_case(seed))
    luma_rgb = seed % 2 == 1 and seed // 2 % 2 == 1
    assert ("clahe_map" in emulated_gpu.launches) != luma_rgb


def test_clahe_empty_batch(emulated_gpu):
    cases_image.check_equal(cases_image.clahe_case(0), empty=True)
    assert "clahe_map" not in emulated_gpu.launches


def test_clahe_program():
    program = _clahe_gpu.program([(4, 6, 3), (0, 5, 1), (3, 3, 1)], [0, 72, 72], [0, 72, 72],
                                 2, 3, 1.5)
    luts, blend = program.launches
    assert luts.args[2][:, 5].tolist() == [0, 18, 18]      # an empty sample has no tables
    assert program.temps == {"luts": 4 * 256 * (18 + 6)}
    assert blend.kernel == "clahe_map" and blend.grid[1] == 3
    with pytest.raises(ValueError, match="tiles must be positive"):
        _clahe_gpu.program([(4, 6, 3)], [0], [0], 0, 1, 1.0)
    empty = _clahe_gpu.program(np.zeros((0, 3)), [], [], 2, 2, 1.0)
    assert empty.launches[0].grid[1] == 0 and empty.launches[0].args[2].shape == (1, 6)
