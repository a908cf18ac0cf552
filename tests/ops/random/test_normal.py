import numpy as np
import pytest
import random_utils as ru
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError


def normal(**args):
    return lambda fn, **kw: fn.random.normal(**args, **kw)


def test_default_is_one_float_per_sample():
    out = ru.draw(normal(), batch_size=8)
    assert all(x.dtype == np.float32 and x.shape == () for x in out)
    assert len(set(np.array(out).tolist())) == 8


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_statistics(real):
    v = np.concatenate(ru.draw(normal(mean=3, stddev=2, shape=[20000]), real=real))
    assert v.dtype == np.float32 and v.size == 80000
    assert abs(v.mean() - 3) < 0.03 and abs(v.std() - 2) < 0.03
    z = (v - 3) / 2
    # Tail masses of the standard normal: P(|z| > 1) = 0.3173, P(|z| > 2) = 0.0455.
    assert abs((np.abs(z) > 1).mean() - 0.3173) < 0.01
    assert abs((np.abs(z) > 2).mean() - 0.0455) < 0.004
    assert abs(np.mean(z ** 3)) < 0.05 and abs(np.mean(z ** 4) - 3) < 0.1


def test_float64():
    v = np.concatenate(ru.draw(normal(dtype=types.FLOAT64, shape=[1000])))
    assert v.dtype == np.float64
    assert not np.array_equal(v, v.astype(np.float32).astype(np.float64))


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_integers_are_rounded_and_saturated(real):
    t = __import__("nvidia.dali.types").dali.types if real else types
    v = np.concatenate(ru.draw(normal(stddev=0.5, dtype=t.INT32, shape=[20000]), real=real))
    assert v.dtype == np.int32
    freq = {k: (v == k).mean() for k in (-1, 0, 1)}
    # round(0.5 z): P(0) = P(|z| < 1) = 0.6827
    assert abs(freq[0] - 0.6827) < 0.01 and abs(freq[1] - 0.1573) < 0.01
    v = np.concatenate(ru.draw(normal(mean=1000, stddev=1000, dtype=t.INT8, shape=[5000]),
                               real=real))
    assert v.dtype == np.int8 and v.max() == 127 and v.min() == -128
    assert abs((v == 127).mean() - 0.8087) < 0.02
    v = np.concatenate(ru.draw(normal(mean=3, stddev=10, dtype=t.UINT8, shape=[5000]),
                               real=real))
    assert v.min() == 0 and abs((v == 0).mean() - 0.3924) < 0.02


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_zero_and_negative_stddev(real):
    v = np.concatenate(ru.draw(normal(mean=3, stddev=0, shape=[10]), real=real))
    assert np.all(v == 3)
    pos = ru.draw(normal(shape=[10]), real=real, op_seed=4)
    neg = ru.draw(normal(stddev=-1, shape=[10]), real=real, op_seed=4)
    assert ru.same(pos, [-x for x in neg])


def test_per_sample_mean_and_stddev():
    mean = [np.array(0, np.float32), np.array(100, np.float32), np.array(-100, np.float32)]
    std = [np.array(1, np.float32), np.array(0, np.float32), np.array(5, np.float32)]
    out, = run_op(lambda fn, m, s: fn.random.normal(mean=m, stddev=s, shape=[2000]),
                  [mean, std])
    assert abs(out[0].mean()) < 0.1 and np.all(out[1] == 100)
    assert abs(out[2].mean() + 100) < 0.5 and abs(out[2].std() - 5) < 0.3


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_shape_like_input(real):
    out, = run_op(lambda fn, x: fn.random.normal(x),
                  [[np.zeros((2, 2), np.int16), np.zeros((3, 1), np.int16)]], real=real)
    assert [(x.shape, x.dtype) for x in out] == [((2, 2), np.float32), ((3, 1), np.float32)]


def test_reproducible_and_seeded():
    ru.check_reproducible_and_seeded(normal(shape=[5]))


def test_independent_of_pruned_ops_threads_and_batching():
    ru.check_independent_of_pruned_ops_threads_and_batching(normal(shape=[5]))
    ru.check_independent_of_pruned_ops_threads_and_batching(normal(shape=[3], dtype=types.INT16,
                                                                   stddev=100))


@pytest.mark.oracle
def test_signature_matches_real_dali():
    ru.check_signature_matches_real_dali("normal")


@pytest.mark.parametrize("dtype", [types.FLOAT16, types.BOOL])
def test_unsupported_types(dtype):
    with pytest.raises(PipelineError, match=r"(?s)dali\.fn\.random\.normal.*data type "
                                            ".* is not supported"):
        ru.draw(normal(dtype=dtype))


def test_non_finite_arguments():
    with pytest.raises(PipelineError, match="the argument `stddev` must be a finite number, "
                                            "got nan"):
        ru.draw(normal(stddev=float("nan")))
