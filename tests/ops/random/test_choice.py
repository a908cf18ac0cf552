import numpy as np
import pytest
import random_utils as ru
from pipeline_utils import run_op

from dali import Pipeline, fn
from dali._executor.errors import PipelineError
from dali.ops.random.choice import Choice


def choice(*inputs, **args):
    return lambda fn, **kw: fn.random.choice(*inputs, **args, **kw)


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_integer_scalar_is_a_range(real):
    out = ru.draw(choice(5), batch_size=8, real=real)
    assert all(x.dtype == np.int32 and x.shape == () for x in out)
    v = np.concatenate(ru.draw(choice(5, shape=[5000]), real=real))
    assert np.allclose(np.bincount(v, minlength=5) / v.size, 0.2, atol=0.01)


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_scalar_input_type_is_kept(real):
    for dtype in (np.int64, np.uint8):
        out, = run_op(lambda fn, a: fn.random.choice(a, shape=[50]),
                      [[np.array(5, dtype)] * 2], real=real)
        assert all(x.dtype == dtype and set(x.tolist()) <= set(range(5)) for x in out)


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_probabilities(real):
    v = np.concatenate(ru.draw(choice(3, p=[0.0, 0.0, 1.0], shape=[10]), real=real))
    assert np.all(v == 2)
    v = np.concatenate(ru.draw(choice(3, p=[0.1, 0.6, 0.3], shape=[10000]), real=real))
    np.testing.assert_allclose(np.bincount(v, minlength=3) / v.size, [0.1, 0.6, 0.3],
                               atol=0.01)


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_picks_along_the_outer_dimension(real):
    rows = np.array([[1, 2], [3, 4], [5, 6]], np.int16)
    out, = run_op(lambda fn, a: fn.random.choice(a, shape=[300]), [[rows] * 2],
                  layouts=["AB"], real=real)
    for x in out:
        assert x.shape == (300, 2) and x.dtype == np.int16
        assert {tuple(r) for r in x.tolist()} == {(1, 2), (3, 4), (5, 6)}
    out, = run_op(lambda fn, a: fn.random.choice(a), [[rows] * 2], real=real)
    assert [x.shape for x in out] == [(2,), (2,)]
    out, = run_op(lambda fn, a: fn.random.choice(a, shape=[5]),
                  [[np.array([1.5, 2.5], np.float32), np.array([7, 8], np.float32)]],
                  real=real)
    assert set(out[0].tolist()) <= {1.5, 2.5} and set(out[1].tolist()) <= {7, 8}


def layouts(build, real=False):
    pkg = __import__("nvidia.dali").dali if real else __import__("dali")
    p = pkg.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p:
        x = pkg.fn.external_source(lambda: [np.zeros((3, 2, 2), np.int16)] * 2, layout="ABC")
        like = pkg.fn.external_source(lambda: [np.zeros((4,), np.int16)] * 2, layout="Z")
        p.set_outputs(*build(pkg.fn, x, like))
    return [t.layout() for t in p.run()]


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_output_layout(real):
    # The input's layout stays when the output has as many dimensions, loses its first
    # letter without `shape`, and is dropped otherwise (measured on real DALI).
    got = layouts(lambda fn, x, like: (fn.random.choice(x, shape=[2]), fn.random.choice(x),
                                       fn.random.choice(x, like),
                                       fn.random.choice(x, shape=[2, 3])), real)
    assert got == ["ABC", "BC", "ABC", ""]


def test_shape_like_input_and_per_sample_probabilities():
    p = [np.array([1, 0, 0], np.float32), np.array([0, 0, 1], np.float32)]
    out, = run_op(lambda fn, p, like: fn.random.choice(3, like, p=p),
                  [p, [np.zeros((2, 2), np.uint8)] * 2])
    assert out[0].tolist() == [[0, 0], [0, 0]] and out[1].tolist() == [[2, 2], [2, 2]]


@pytest.mark.parametrize("args", [dict(shape=[7]), dict(p=[0.1, 0.2, 0.3, 0.4], shape=[5]),
                                  dict(p=[0.5, 0.5, 0.0, 0.0])])
def test_whole_batch_path_equals_the_per_sample_one(monkeypatch, args):
    fast = ru.draw(choice(4, **args), batch_size=6)
    monkeypatch.setattr(Choice, "_choose_from_ranges", staticmethod(lambda ws: False))
    slow = ru.draw(choice(4, **args), batch_size=6)
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_array_equal(a, b)


def test_reproducible_and_seeded():
    ru.check_reproducible_and_seeded(choice(10, shape=[8]))


def test_independent_of_pruned_ops_threads_and_batching():
    ru.check_independent_of_pruned_ops_threads_and_batching(choice(10, shape=[8]))
    ru.check_independent_of_pruned_ops_threads_and_batching(choice(4, p=[0.1, 0.2, 0.3, 0.4]))


@pytest.mark.oracle
def test_signature_matches_real_dali():
    ru.check_signature_matches_real_dali("choice")


@pytest.mark.parametrize("a, args, message", [
    (0, {}, "at least one element to choose from, got 0"),
    (-2, {}, "at least one element to choose from, got -2"),
    (3, dict(p=[0.5, 0.0, 0.0]), "probabilities `p` must sum to 1, got 0.5"),
    (3, dict(p=[0.5, 0.5]), "`p` has 2 probabilities but there are 3 elements"),
    (3, dict(p=[-0.5, 0.5, 1.0]), r"probabilities `p` must be in \[0, 1\]"),
])
def test_bad_arguments(a, args, message):
    with pytest.raises(PipelineError, match=message):
        ru.draw(choice(a, **args))


def test_scalar_input_must_be_an_integer():
    with pytest.raises(PipelineError, match="a scalar input must be of an integer type") as e:
        run_op(lambda fn, a: fn.random.choice(a), [[np.array(5, np.float32)]])
    assert isinstance(e.value.__cause__, TypeError)
    with pytest.raises(PipelineError, match="at least one element"):
        run_op(lambda fn, a: fn.random.choice(a), [[np.zeros((0,), np.int16)]])


def test_input_is_required():
    with Pipeline(batch_size=1, num_threads=1, device_id=None), \
            pytest.raises(ValueError, match="expects from 1 to 2 inputs"):
        fn.random.choice()
