"""equalize.cu under the emulated device equals fn.equalize on the CPU: uint8 images and
videos in HW, HWC, CHW, FHW, FHWC and FCHW (tables per plane and channel), narrow ranges,
channels of one value, empty samples, an empty batch, fn.experimental.equalize; the program's
launches and checks."""

import warnings

import cases_image
import numpy as np
import pytest

from dali.ops.color import _equalize_gpu


@pytest.mark.parametrize("seed", range(12))
def test_equalize_equals_cpu(emulated_gpu, seed):
    cases_image.check_equal(cases_image.equalize_case(seed))
    assert emulated_gpu.launches[-2:] == ["equalize_luts", "equalize_map"]


def test_experimental_equalize_equals_cpu(emulated_gpu):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cases_image.check_equal(cases_image.equalize_case(4, "experimental.equalize"))
    assert "equalize_map" in emulated_gpu.launches


def test_equalize_empty_batch(emulated_gpu):
    cases_image.check_equal(cases_image.equalize_case(1), empty=True)
    assert "equalize_map" not in emulated_gpu.launches


def test_equalize_program():
    program = _equalize_gpu.program([2, 1], [6, 4], [3, 1], [0, 36], [0, 36])
    luts, mapping = program.launches
    assert program.temps == {"luts": 256 * (2 * 3 + 1)}
    assert luts.args[2][:, 5].tolist() == [0, 6] and mapping.grid[1] == 2
    with pytest.raises(ValueError, match="one valid value"):
        _equalize_gpu.program([1], [4], [0], [0], [0])
    empty = _equalize_gpu.program(np.zeros(0), [], [], [], [])
    assert empty.launches[0].grid[1] == 0 and empty.launches[0].args[2].shape == (1, 6)
