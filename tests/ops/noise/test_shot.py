"""fn.noise.shot: Poisson moments over seeds (inversion and PTRS), factor 0 and negative,
types and determinism."""

import numpy as np
import pytest
from pipeline_utils import run_op


@pytest.mark.parametrize("value,factor", [(3.0, 1.0), (40.0, 4.0), (50.0, 0.5), (1000.0, 2.0),
                                          (200.0, 20.0)])
@pytest.mark.parametrize("seed", range(3))
def test_poisson_moments(value, factor, seed):
    x = np.full((150, 150), value, np.float32)
    out, = run_op(lambda fn, x: fn.noise.shot(x, factor=factor), [[x]], seed=seed)
    k = out[0] / factor                                        # Poisson(value / factor)
    lam = value / factor
    np.testing.assert_array_equal(k, np.round(k))
    assert abs(k.mean() - lam) < 5 * np.sqrt(lam / k.size)
    assert abs(k.var() / lam - 1) < 0.05


def test_zero_and_negative_factor():
    x = np.array([2.5, 0.0, 7.0], np.float32)
    zero, = run_op(lambda fn, x: fn.noise.shot(x, factor=0.0), [[x]])
    np.testing.assert_array_equal(zero[0], 0)
    neg, = run_op(lambda fn, x: fn.noise.shot(x, factor=-2.0), [[x]])
    np.testing.assert_array_equal(neg[0], 0)                  # max(0, in / factor) = 0


def test_uint8_saturates_and_is_deterministic():
    x = np.full((64, 64, 3), 250, np.uint8)
    a, = run_op(lambda fn, x: fn.noise.shot(x, factor=10.0), [[x]], seed=1)
    b, = run_op(lambda fn, x: fn.noise.shot(x, factor=10.0), [[x]], seed=1, num_threads=4)
    assert a[0].dtype == np.uint8 and (a[0] == 255).any() and (a[0] % 10 == 0).sum() > 0
    np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.oracle
def test_oracle_statistics_match():
    x = np.full((200, 200), 120, np.uint8)
    ours, = run_op(lambda fn, x: fn.noise.shot(x, factor=6.0), [[x]])
    real, = run_op(lambda fn, x: fn.noise.shot(x, factor=6.0), [[x]], real=True)
    assert abs(ours[0].mean() - real[0].mean()) < 0.5
    assert abs(ours[0].astype(float).std() / real[0].astype(float).std() - 1) < 0.05
