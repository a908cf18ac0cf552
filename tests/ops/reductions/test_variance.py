"""fn.reductions.variance: against NumPy over random shapes, axes and types, and against real
DALI."""

import numpy as np
import pytest
from layout_utils import run_layouts
from reduction_utils import check_dali, check_random, random_batch, reference

from dali import types
from dali._executor.errors import PipelineError

OP = "variance"
RNG = np.random.default_rng(3308)


def test_random_shapes_axes_and_types_equal_numpy():
    check_random(OP, RNG)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{}, {"axes": [0, 1]}, {"axis_names": "C", "keep_dims": True},
                                    {"axes": -1}, {"axes": []}])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32])
def test_matches_dali(kwargs, dtype):
    check_dali(OP, kwargs, random_batch(RNG, 3, dtype, high=120), "HWC")


@pytest.mark.parametrize("ddof", [0, 1, 3])
def test_constant_and_per_output_means(ddof):
    batch = random_batch(RNG, 3, np.float32)
    for mean, axes in ((40.0, None), (np.float32(7), [1])):
        out, _ = run_layouts(lambda fn, x, m=mean, a=axes: fn.reductions.variance(
            x, m, ddof=ddof, **({} if a is None else {"axes": a})), [batch])
        for x, o in zip(batch, out, strict=True):
            np.testing.assert_allclose(o, reference(x, OP, axes, False, mean, ddof), rtol=1e-5)


def test_mean_must_be_float_of_a_matching_size():
    batch = [np.ones((2, 3), np.float32)]
    with pytest.raises(PipelineError, match="The mean must be of type float, not int32"):
        run_layouts(lambda fn, x: fn.reductions.variance(x, fn.cast(x, dtype=types.INT32)), [batch])
    with pytest.raises(PipelineError, match="the mean has 6 elements, not 1 or 3"):
        run_layouts(lambda fn, x: fn.reductions.variance(x, x, axes=[0]), [batch])


@pytest.mark.oracle
def test_ddof_and_constant_mean_match_dali():
    batch = random_batch(RNG, 3, np.float32)
    check_dali(OP, {"ddof": 1, "axes": [0]}, batch)
    check_dali(OP, {"ddof": 2}, batch, mean=30.0)
