"""fn.noise.gaussian: moments over seeds, rounding and saturation, per-sample arguments,
determinism, types and errors."""

import numpy as np
import pytest
from pipeline_utils import run_op

from dali._executor.errors import PipelineError


@pytest.mark.parametrize("seed", range(8))
def test_moments_over_seeds(seed):
    rng = np.random.default_rng(seed)
    mean, std = float(rng.uniform(-5, 5)), float(rng.uniform(0.5, 20))
    x = np.zeros((100, 120), np.float32)
    out, = run_op(lambda fn, x: fn.noise.gaussian(x, mean=mean, stddev=std), [[x]], seed=seed)
    n = out[0] - x
    se = std / np.sqrt(n.size)
    assert abs(n.mean() - mean) < 5 * se
    assert abs(n.std() / std - 1) < 0.03
    # a normal's quartiles
    q1, q3 = np.percentile(n, [25, 75])
    assert abs((q3 - q1) / (1.349 * std) - 1) < 0.05


def test_integer_rounding_and_saturation():
    x = np.array([0, 2, 100, 254, 255], np.uint8)
    up, = run_op(lambda fn, x: fn.noise.gaussian(x, mean=0.5, stddev=0.0), [[x]])
    down, = run_op(lambda fn, x: fn.noise.gaussian(x, mean=-0.5, stddev=0.0), [[x]])
    np.testing.assert_array_equal(up[0], [1, 3, 101, 255, 255])      # halves away from zero
    np.testing.assert_array_equal(down[0], [0, 2, 100, 254, 255])
    big, = run_op(lambda fn, x: fn.noise.gaussian(x, mean=-1000.0, stddev=0.0),
                  [[np.array([5, -5], np.int16)]])
    np.testing.assert_array_equal(big[0], [-995, -1005])
    sat, = run_op(lambda fn, x: fn.noise.gaussian(x, stddev=1000.0), [[np.full(500, 9, np.int8)]])
    assert set(np.unique(sat[0])) >= {-128, 127}


def test_per_sample_arguments_and_determinism():
    xs = [np.zeros((50, 50), np.float32)] * 3
    means = [np.float32(m) for m in (-10, 0, 10)]
    a, = run_op(lambda fn, x, m: fn.noise.gaussian(x, mean=m, stddev=1.0), [xs, means], seed=5)
    b, = run_op(lambda fn, x, m: fn.noise.gaussian(x, mean=m, stddev=1.0), [xs, means], seed=5,
                num_threads=3)
    c, = run_op(lambda fn, x, m: fn.noise.gaussian(x, mean=m, stddev=1.0), [xs, means], seed=6)
    for m, o, o2, o3 in zip(means, a, b, c, strict=True):
        assert abs(o.mean() - m) < 0.2
        np.testing.assert_array_equal(o, o2)                  # whatever the thread count
        assert not np.array_equal(o, o3)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32,
                                   np.uint64, np.int64, np.float32])
def test_types_keep_shape_and_type(dtype):
    x = np.full((6, 7, 3), 50, dtype)
    out, = run_op(lambda fn, x: fn.noise.gaussian(x, stddev=2.0), [[x]], layouts=["HWC"])
    assert out[0].dtype == dtype and out[0].shape == x.shape
    assert np.abs(out[0].astype(float) - 50).max() < 15 and (out[0] != 50).any()


@pytest.mark.parametrize("dtype,name", [(np.float16, "float16"), (np.float64, "double"),
                                        (np.bool_, "bool")])
def test_unsupported_types(dtype, name):
    with pytest.raises(PipelineError, match=f"Data type {name} is currently not supported"):
        run_op(lambda fn, x: fn.noise.gaussian(x), [[np.zeros(4, dtype)]])


@pytest.mark.oracle
def test_oracle_statistics_match():
    x = np.full((200, 200), 100, np.uint8)
    ours, = run_op(lambda fn, x: fn.noise.gaussian(x, mean=3.0, stddev=7.0), [[x]])
    real, = run_op(lambda fn, x: fn.noise.gaussian(x, mean=3.0, stddev=7.0), [[x]], real=True)
    for stat in (np.mean, np.std):
        assert abs(stat(ours[0].astype(float)) - stat(real[0].astype(float))) < 0.15
