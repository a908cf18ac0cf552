"""fn.reductions.*: every reduction against NumPy over random shapes, axes and types, and
against real DALI."""

import numpy as np
import pytest
from reduction_utils import check_dali, check_random, random_batch

SEEDS = {"max": 20691, "min": 17969, "mean": 31053, "rms": 12880, "std_dev": 20073,
         "variance": 3308, "sum": 19829, "mean_square": 6825}


@pytest.mark.parametrize("op", SEEDS)
def test_random_shapes_axes_and_types_equal_numpy(op):
    check_random(op, np.random.default_rng(SEEDS[op]))


@pytest.mark.oracle
@pytest.mark.parametrize("op", SEEDS)
@pytest.mark.parametrize("kwargs", [{}, {"axes": [0, 1]}, {"axis_names": "C", "keep_dims": True},
                                    {"axes": -1}, {"axes": []}])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32])
def test_matches_dali(op, kwargs, dtype):
    rng = np.random.default_rng(SEEDS[op])
    check_dali(op, kwargs, random_batch(rng, 3, dtype, high=120), "HWC")
