import numpy as np
import pytest
import random_utils as ru
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError


def coin_flip(**args):
    return lambda fn, **kw: fn.random.coin_flip(**args, **kw)


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_default_is_a_fair_int32_coin(real):
    out = ru.draw(coin_flip(), batch_size=16, real=real)
    assert all(x.dtype == np.int32 and x.shape == () for x in out)
    v = np.concatenate(ru.draw(coin_flip(shape=[10000]), real=real))
    assert set(v.tolist()) == {0, 1} and abs(v.mean() - 0.5) < 0.01


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
@pytest.mark.parametrize("p", [0.0, 0.1, 0.75, 1.0])
def test_probability(real, p):
    v = np.concatenate(ru.draw(coin_flip(probability=p, shape=[10000]), real=real))
    assert abs(v.mean() - p) < 0.01
    if p in (0.0, 1.0):
        assert np.all(v == p)


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
@pytest.mark.parametrize("dtype, np_type", [("BOOL", np.bool_), ("UINT8", np.uint8),
                                            ("INT32", np.int32)])
def test_dtypes(real, dtype, np_type):
    out = ru.draw(coin_flip(dtype=getattr(ru.types_of(real), dtype), shape=[8]), real=real)
    assert all(x.dtype == np_type and x.shape == (8,) for x in out)


def test_per_sample_probability():
    prob = [np.array(0, np.float32), np.array(1, np.float32), np.array(0.25, np.float32)]
    out, = run_op(lambda fn, p: fn.random.coin_flip(probability=p, shape=[4000]), [prob])
    assert np.all(out[0] == 0) and np.all(out[1] == 1) and abs(out[2].mean() - 0.25) < 0.02


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_shape_like_input(real):
    out, = run_op(lambda fn, x: fn.random.coin_flip(x),
                  [[np.zeros((2, 2), np.float32), np.zeros((0, 3), np.float32)]], real=real)
    assert [(x.shape, x.dtype) for x in out] == [((2, 2), np.int32), ((0, 3), np.int32)]


def test_reproducible_and_seeded():
    ru.check_reproducible_and_seeded(coin_flip(shape=[20]))


def test_independent_of_pruned_ops_threads_and_batching():
    ru.check_independent_of_pruned_ops_threads_and_batching(coin_flip(shape=[20]))


@pytest.mark.oracle
def test_signature_matches_real_dali():
    ru.check_signature_matches_real_dali("coin_flip")


@pytest.mark.parametrize("dtype", [types.FLOAT, types.FLOAT16, types.INT64])
def test_unsupported_types(dtype):
    with pytest.raises(PipelineError, match="supported types are: bool, uint8, int32"):
        ru.draw(coin_flip(dtype=dtype))


@pytest.mark.parametrize("p", [-0.5, 1.5, float("nan")])
def test_probability_outside_zero_one_is_an_error(p):
    # Real DALI gives unspecified results here (p=-0.5 behaves like 0.5, p=1.5 like 1).
    with pytest.raises(PipelineError, match=r"(?s)dali\.fn\.random\.coin_flip.*the "
                                            r"argument `probability` must be in \[0, 1\]"):
        ru.draw(coin_flip(probability=p))
