"""fn.to_decibels: NumPy reference over random shapes and arguments (the per-sample maximum as
reference), the approximate log10 over the whole float range, goldens, real DALI, errors."""

import numpy as np
import pytest
from layout_utils import run_layouts
from pipeline_utils import run_op
from signal_utils import golden_cases, run_golden


def reference(x, multiplier=10.0, reference=0.0, cutoff_db=-200.0):
    ref = reference or x.max()
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = x.astype(np.float64) / ref
    ratio = np.where(ratio > 10 ** (cutoff_db / multiplier), ratio, 10 ** (cutoff_db / multiplier))
    return multiplier * np.log10(ratio)


def assert_db_close(out, ref):
    assert out.dtype == np.float32 and out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-4)


@pytest.mark.parametrize("seed", range(8))
def test_random_against_numpy(seed):
    rng = np.random.default_rng(seed)
    kwargs = {}
    if seed % 2:
        kwargs["multiplier"] = float(rng.choice([20.0, -10.0, 3.5]))
    if seed % 3 == 1:
        kwargs["reference"] = float(rng.uniform(0.01, 10))
    if seed % 4 > 1:
        kwargs["cutoff_db"] = float(rng.uniform(-120, -10))
    ndim = 1 + seed % 3
    batch = [(rng.random(rng.integers(0, 30, ndim)) ** 6 * 50).astype(np.float32)
             for _ in range(4)]
    batch[0] = np.ones([3] * ndim, np.float32)
    (out,) = run_op(lambda fn, x: fn.to_decibels(x, **kwargs), [batch], num_threads=3)
    for x, o in zip(batch, out, strict=True):
        assert_db_close(o, reference(x, **kwargs))


def test_whole_float_range_and_specials():
    x = np.concatenate([np.logspace(-37.9, 38.5, 200_001), [np.inf, 0, 1, 2, 0.5]])
    x = x.astype(np.float32)
    (out,) = run_op(lambda fn, t: fn.to_decibels(t, reference=1.0, cutoff_db=-1000.0), [[x]])
    with np.errstate(divide="ignore"):
        want = 10 * np.log10(x.astype(np.float64))
    np.testing.assert_allclose(out[0][:-5], want[:-5], rtol=2e-7, atol=5e-5)
    assert out[0][-5:].tolist() == [np.inf, -np.inf, 0.0, pytest.approx(3.0103, abs=1e-4),
                                    pytest.approx(-3.0103, abs=1e-4)]


def test_subnormal_cutoff_and_zero_samples():
    x = np.array([1e-42, 1e-39, 1.0], np.float32)
    (out,) = run_op(lambda fn, t: fn.to_decibels(t, cutoff_db=-500.0), [[x]])
    assert_db_close(out[0], reference(x, cutoff_db=-500.0))
    # a sample of zeros is its own reference: 0 / 0 saturates at the cut-off, as in DALI
    (out,) = run_op(lambda fn, t: fn.to_decibels(t), [[np.zeros(3, np.float32),
                                                       np.zeros(0, np.float32)]])
    assert out[0].tolist() == [pytest.approx(-200.0)] * 3 and out[1].shape == (0,)


def test_layout_kept():
    out, layout = run_layouts(lambda fn, t: fn.to_decibels(t), [[np.ones((2, 3), np.float32)]],
                              ["ft"])
    assert layout == "ft" and out[0].tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("kwargs, sample, match", [
    ({"multiplier": 0.0}, np.ones(3, np.float32), "`multiplier` must not be 0"),
    ({}, np.ones(3, np.float64), "Unsupported data type"),
    ({}, np.ones(3, np.int16), "Unsupported data type"),
])
def test_errors(kwargs, sample, match):
    with pytest.raises(Exception, match="to_decibels") as info:
        run_op(lambda fn, t: fn.to_decibels(t, **kwargs), [[sample]])
    assert info.match(match)


@pytest.mark.parametrize("k", golden_cases("to_decibels"))
def test_golden(k):
    out, expected = run_golden(k)
    for o, e in zip(out, expected, strict=True):
        assert_db_close(o, e)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{}, {"multiplier": 20.0, "cutoff_db": -60.0},
                                    {"reference": 3.0, "cutoff_db": -20.0}])
def test_oracle(kwargs):
    rng = np.random.default_rng(2)
    batch = [(rng.random(n) ** 5 * 10).astype(np.float32) for n in (1000, 1, 0, 77)]

    def build(fn, x):
        return fn.to_decibels(x, **kwargs)
    for o, r in zip(run_op(build, [batch])[0], run_op(build, [batch], real=True)[0],
                    strict=True):
        assert_db_close(o, r)
