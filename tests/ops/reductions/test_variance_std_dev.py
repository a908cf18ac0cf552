"""fn.reductions.variance and std_dev: the mean input (constant or per output), ddof, and its
checks."""

import numpy as np
import pytest
from layout_utils import run_layouts
from reduction_utils import check_dali, random_batch, reference

from dali import types
from dali._executor.errors import PipelineError

SEEDS = {"std_dev": 20073, "variance": 3308}
OPS = pytest.mark.parametrize("op", SEEDS)


@OPS
@pytest.mark.parametrize("ddof", [0, 1, 3])
def test_constant_and_per_output_means(op, ddof):
    batch = random_batch(np.random.default_rng(SEEDS[op]), 3, np.float32)
    for mean, axes in ((40.0, None), (np.float32(7), [1])):
        out, _ = run_layouts(lambda fn, x, m=mean, a=axes: getattr(fn.reductions, op)(
            x, m, ddof=ddof, **({} if a is None else {"axes": a})), [batch])
        for x, o in zip(batch, out, strict=True):
            np.testing.assert_allclose(o, reference(x, op, axes, False, mean, ddof), rtol=1e-5)


@OPS
def test_mean_must_be_float_of_a_matching_size(op):
    batch = [np.ones((2, 3), np.float32)]
    with pytest.raises(PipelineError, match="The mean must be of type float, not int32"):
        run_layouts(lambda fn, x: getattr(fn.reductions, op)(x, fn.cast(x, dtype=types.INT32)),
                    [batch])
    with pytest.raises(PipelineError, match="the mean has 6 elements, not 1 or 3"):
        run_layouts(lambda fn, x: getattr(fn.reductions, op)(x, x, axes=[0]), [batch])


@pytest.mark.oracle
@OPS
def test_ddof_and_constant_mean_match_dali(op):
    batch = random_batch(np.random.default_rng(SEEDS[op]), 3, np.float32)
    check_dali(op, {"ddof": 1, "axes": [0]}, batch)
    check_dali(op, {"ddof": 2}, batch, mean=30.0)
