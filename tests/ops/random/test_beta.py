import numpy as np
import pytest
import random_utils as ru
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError


def beta(**args):
    return lambda fn, **kw: fn.random.beta(**args, **kw)


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_default_is_one_float_per_sample_uniform_on_zero_one(real):
    out = ru.draw(beta(), batch_size=8, real=real)
    assert all(x.dtype == np.float32 and x.shape == () for x in out)
    v = np.concatenate(ru.draw(beta(shape=[10000]), real=real))
    assert v.min() >= 0 and v.max() <= 1
    assert abs(v.mean() - 0.5) < 0.01 and abs(v.var() - 1 / 12) < 0.005


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
@pytest.mark.parametrize("a, b", [(2, 5), (0.5, 0.5), (0.3, 2.0), (50, 0.5)])
def test_moments(real, a, b):
    v = np.concatenate(ru.draw(beta(alpha=a, beta=b, shape=[20000],
                                    dtype=ru.types_of(real).FLOAT64), real=real))
    assert v.dtype == np.float64 and v.min() >= 0 and v.max() <= 1
    mean, var = a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))
    assert abs(v.mean() - mean) < 4 * np.sqrt(var / v.size) + 1e-4
    assert abs(v.var() / var - 1) < 0.03


@pytest.mark.parametrize("a, b", [(1, 1), (2, 5), (1, 30), (0.5, 0.5), (0.3, 2.0), (50, 0.5)])
def test_distribution_passes_kolmogorov_smirnov(a, b):
    stats = pytest.importorskip("scipy.stats")
    v = np.concatenate(ru.draw(beta(alpha=a, beta=b, shape=[10000], dtype=types.FLOAT64)))
    # 40000 draws: the statistic's 1% critical value is 1.63 / sqrt(n)
    assert stats.kstest(v, stats.beta(a, b).cdf).statistic < 1.63 / np.sqrt(v.size)


def test_tiny_shape_parameters_keep_their_mass_near_zero_and_one():
    # Beta(0.01, 0.01): about half the mass within 1e-10 of either end; the CDF at 1e-50 is
    # 0.1581 and at 1e-10 0.3972 (scipy.stats.beta.cdf).
    v = np.concatenate(ru.draw(beta(alpha=0.01, beta=0.01, shape=[20000],
                                    dtype=types.FLOAT64)))
    assert abs((v < 1e-50).mean() - 0.1581) < 0.01
    assert abs((v < 1e-10).mean() - 0.3972) < 0.012
    assert abs((v < 0.5).mean() - 0.5) < 0.012


def test_per_sample_parameters():
    a = [np.array(1, np.float32), np.array(20, np.float32)]
    b = [np.array(20, np.float32), np.array(1, np.float32)]
    out, = run_op(lambda fn, a, b: fn.random.beta(alpha=a, beta=b, shape=[4000]), [a, b])
    assert abs(out[0].mean() - 1 / 21) < 0.005 and abs(out[1].mean() - 20 / 21) < 0.005


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_shape_like_input(real):
    out, = run_op(lambda fn, x: fn.random.beta(x), [[np.zeros((3,), np.int16)] * 2], real=real)
    assert [(x.shape, x.dtype) for x in out] == [((3,), np.float32)] * 2


def test_reproducible_and_seeded():
    ru.check_reproducible_and_seeded(beta(shape=[5], alpha=0.5, beta=3))


@pytest.mark.parametrize("a, b", [(0.2, 1.5), (1.0, 1.0), (4.0, 1.5)])
def test_independent_of_pruned_ops_threads_and_batching(a, b):
    # Small shapes reject often, so several rejection rounds are exercised; both at least 1
    # takes the path without logs.
    ru.check_independent_of_pruned_ops_threads_and_batching(beta(shape=[50], alpha=a, beta=b))


@pytest.mark.oracle
def test_signature_matches_real_dali():
    ru.check_signature_matches_real_dali("beta")


@pytest.mark.parametrize("dtype", [types.INT32, types.FLOAT16])
def test_unsupported_types(dtype):
    with pytest.raises(PipelineError, match="supported types are: float32, float64"):
        ru.draw(beta(dtype=dtype))


@pytest.mark.parametrize("args, name", [(dict(alpha=0), "alpha"), (dict(beta=-1), "beta"),
                                        (dict(alpha=float("inf")), "alpha")])
def test_parameters_must_be_positive(args, name):
    with pytest.raises(PipelineError, match=f"the argument `{name}` must be a positive finite "
                                            "number"):
        ru.draw(beta(**args))
