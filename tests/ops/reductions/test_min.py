"""fn.reductions.min: against NumPy over random shapes, axes and types, and against real
DALI."""

import numpy as np
import pytest
from layout_utils import run_layouts
from reduction_utils import check_dali, check_random, random_batch

OP = "min"
RNG = np.random.default_rng(17969)


def test_random_shapes_axes_and_types_equal_numpy():
    check_random(OP, RNG)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{}, {"axes": [0, 1]}, {"axis_names": "C", "keep_dims": True},
                                    {"axes": -1}, {"axes": []}])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32])
def test_matches_dali(kwargs, dtype):
    check_dali(OP, kwargs, random_batch(RNG, 3, dtype, high=120), "HWC")


def test_nan_never_wins_and_empty_gives_the_identity():
    batch = [np.array([np.nan, 1, 2], np.float32), np.array([2, np.nan, 1], np.float32)]
    out, _ = run_layouts(lambda fn, x: fn.reductions.min(x), [batch])
    assert [o.item() for o in out] == [1, 1]
    out, _ = run_layouts(lambda fn, x: fn.reductions.min(x, axes=0),
                         [[np.zeros((0, 2), np.float32)]])
    info = np.finfo(np.float32)
    assert out[0].tolist() == [info.max] * 2
    out, _ = run_layouts(lambda fn, x: fn.reductions.min(x, axes=0), [[np.zeros((0, 2), np.int16)]])
    assert out[0].tolist() == [32767] * 2 and out[0].dtype == np.int16
