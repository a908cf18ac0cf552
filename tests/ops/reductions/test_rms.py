"""fn.reductions.rms: against NumPy over random shapes, axes and types, and against real
DALI."""

import numpy as np
import pytest
from layout_utils import run_layouts
from reduction_utils import check_dali, check_random, random_batch

from dali import types

OP = "rms"
RNG = np.random.default_rng(12880)


def test_random_shapes_axes_and_types_equal_numpy():
    check_random(OP, RNG)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{}, {"axes": [0, 1]}, {"axis_names": "C", "keep_dims": True},
                                    {"axes": -1}, {"axes": []}])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32])
def test_matches_dali(kwargs, dtype):
    check_dali(OP, kwargs, random_batch(RNG, 3, dtype, high=120), "HWC")


def test_integer_output_truncates():
    batch = [np.array([1, 2], np.uint8), np.array([2, 2, 2, 1], np.uint8)]
    out, _ = run_layouts(lambda fn, x: fn.reductions.rms(x, dtype=types.UINT8), [batch])
    assert [o.item() for o in out] == [1, 1] and out[0].dtype == np.uint8
    out, _ = run_layouts(lambda fn, x: fn.reductions.rms(x, dtype=types.INT16),
                         [[np.array([-3, -4, -4, -4], np.int16)]])
    assert out[0].item() == 3
