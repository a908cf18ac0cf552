"""fn.reductions.mean_square: against NumPy over random shapes, axes and types, and against real
DALI."""

import numpy as np
import pytest
from layout_utils import run_layouts
from reduction_utils import check_dali, check_random, random_batch

from dali import types
from dali._executor.errors import PipelineError

OP = "mean_square"
RNG = np.random.default_rng(6825)


def test_random_shapes_axes_and_types_equal_numpy():
    check_random(OP, RNG)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{}, {"axes": [0, 1]}, {"axis_names": "C", "keep_dims": True},
                                    {"axes": -1}, {"axes": []}])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32])
def test_matches_dali(kwargs, dtype):
    check_dali(OP, kwargs, random_batch(RNG, 3, dtype, high=120), "HWC")


def test_only_float_output():
    out, _ = run_layouts(lambda fn, x: fn.reductions.mean_square(x, dtype=types.FLOAT),
                         [[np.array([250, 10], np.uint8)]])
    assert out[0].item() == 31300 and out[0].dtype == np.float32
    with pytest.raises(PipelineError, match="Unsupported types: uint8, uint8"):
        run_layouts(lambda fn, x: fn.reductions.mean_square(x, dtype=types.UINT8),
                    [[np.zeros(3, np.uint8)]])
