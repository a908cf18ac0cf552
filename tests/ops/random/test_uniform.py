import numpy as np
import pytest
import random_utils as ru
from pipeline_utils import run_op

from dali import Pipeline, fn, types
from dali._executor.errors import PipelineError


def uniform(**args):
    return lambda fn, **kw: fn.random.uniform(**args, **kw)


def test_default_is_one_float_per_sample_in_minus_one_one():
    out = ru.draw(uniform(), batch_size=8)
    assert all(x.dtype == np.float32 and x.shape == () for x in out)
    v = np.array(out)
    assert v.min() >= -1 and v.max() < 1 and len(set(v.tolist())) == 8


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_float_statistics(real):
    v = np.concatenate(ru.draw(uniform(range=[2, 5], shape=[20000]), real=real))
    assert v.dtype == np.float32 and v.size == 80000
    assert v.min() >= 2 and v.max() < 5
    assert abs(v.mean() - 3.5) < 0.02 and abs(v.var() - 9 / 12) < 0.02
    hist = np.histogram(v, bins=10, range=(2, 5))[0]
    assert np.all(np.abs(hist / 8000 - 1) < 0.06)


def test_float64_uses_the_full_precision():
    v = np.concatenate(ru.draw(uniform(dtype=types.FLOAT64, shape=[1000])))
    assert v.dtype == np.float64
    assert not np.array_equal(v, v.astype(np.float32).astype(np.float64))


def test_the_end_of_a_float32_range_is_excluded():
    # 1 + u * 2**-22 rounds up to the end in float32 for about half of the draws.
    v = np.concatenate(ru.draw(uniform(range=[1, 1 + 2 ** -22], shape=[1000])))
    assert v.max() < np.float32(1 + 2 ** -22) and v.min() >= 1


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
@pytest.mark.parametrize("dtype", ["INT32", "UINT8", "INT64", "INT16", "UINT32"])
def test_integer_ranges_are_inclusive_with_half_likely_ends(real, dtype):
    # Measured on real DALI: a rounded continuous draw, so the ends are half as likely.
    t = getattr(types, dtype)
    real_t = getattr(__import__("nvidia.dali.types").dali.types, dtype) if real else t
    out = ru.draw(uniform(range=[0, 3], dtype=real_t, shape=[6000]), real=real)
    v = np.concatenate(out)
    assert v.dtype == np.dtype(types.to_numpy_type(t))
    freq = np.bincount(v.astype(np.int64), minlength=4) / v.size
    np.testing.assert_allclose(freq, [1 / 6, 1 / 3, 1 / 3, 1 / 6], atol=0.012)


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_integer_range_ends_are_truncated(real):
    t_ = __import__("nvidia.dali.types").dali.types if real else types
    for rng, expected in (([-2.5, -0.5], [0.25, 0.5, 0.25]), ([-2.5, 0.7], [0.25, 0.5, 0.25]),
                          ([0.5, 2.5], [0.25, 0.5, 0.25]), ([0, 1], [0.5, 0.5]),
                          ([0.2, 0.9], [1.0])):
        v = np.concatenate(ru.draw(uniform(range=rng, dtype=t_.INT32, shape=[3000]),
                                   real=real))
        values, counts = np.unique(v, return_counts=True)
        first = int(np.trunc(rng[0]))
        assert values.tolist() == list(range(first, first + len(expected))), rng
        np.testing.assert_allclose(counts / v.size, expected, atol=0.02)


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_values(real):
    v = np.concatenate(ru.draw(uniform(values=[1, 2.5, 7], shape=[3000]), real=real))
    assert v.dtype == np.float32
    counts = np.array([(v == x).sum() for x in (1, 2.5, 7)])
    assert counts.sum() == v.size and np.all(np.abs(counts / 4000 - 1) < 0.06)


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_values_are_converted_with_rounding_and_saturation(real):
    t_ = __import__("nvidia.dali.types").dali.types if real else types
    for t, expected in ((t_.UINT8, {2, 0, 255}), (t_.INT32, {2, -3, 300})):
        v = np.concatenate(ru.draw(uniform(values=[1.7, -2.5, 300], dtype=t, shape=[60]),
                                   real=real))
        assert set(v.tolist()) == expected


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_values_win_over_range(real):
    v = np.concatenate(ru.draw(uniform(values=[10, 20], range=[0, 1], shape=[50]), real=real))
    assert set(v.tolist()) == {10, 20}


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
@pytest.mark.parametrize("shape, expected", [(3, (3,)), ([2, 3], (2, 3)), ([], ()),
                                             ([0], (0,))])
def test_shapes(real, shape, expected):
    out = ru.draw(uniform(shape=shape), real=real)
    assert [x.shape for x in out] == [expected] * 4


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_shape_like_input_gives_the_shapes_not_the_layout(real):
    samples = [np.zeros((2, 3), np.uint8), np.zeros((1, 4), np.uint8)]
    out, = run_op(lambda fn, x: fn.random.uniform(x), [samples], layouts=["HW"], real=real)
    assert [x.shape for x in out] == [(2, 3), (1, 4)]
    assert all(x.dtype == np.float32 for x in out)
    p = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p:
        x = fn.external_source(lambda: samples, layout="HW")
        p.set_outputs(fn.random.uniform(x))
    assert p.run()[0].layout() == ""


def test_per_sample_shape_and_range_inputs():
    shapes = [np.array([1], np.int64), np.array([3], np.int64), np.array([0], np.int64)]
    ranges = [np.array([0, 1], np.float32), np.array([10, 11], np.float32),
              np.array([5, 6], np.float32)]
    out, = run_op(lambda fn, s, r: fn.random.uniform(shape=s, range=r), [shapes, ranges])
    assert [x.shape for x in out] == [(1,), (3,), (0,)]
    assert 0 <= out[0][0] < 1 and np.all((out[1] >= 10) & (out[1] < 11))


def test_per_sample_values_input():
    vals = [np.array([0, 1], np.float32), np.array([10, 11, 12], np.float32)]
    out, = run_op(lambda fn, v: fn.random.uniform(values=v, shape=[50]), [vals])
    assert set(out[0].tolist()) == {0, 1} and set(out[1].tolist()) == {10, 11, 12}


def test_sample_values_depend_on_the_sample_index_in_the_epoch_and_the_epoch():
    def pipe():
        def cb(info):
            if info.iteration == 2:
                raise StopIteration
            return [np.zeros(1, np.uint8)] * 2
        p = Pipeline(batch_size=2, num_threads=1, device_id=None, seed=5)
        with p:
            p.set_outputs(fn.random.uniform(fn.external_source(cb, batch_info=True)))
        return p

    p = pipe()
    epoch0 = [np.array(p.run()[0].as_array()) for _ in range(2)]
    with pytest.raises(StopIteration):
        p.run()
    p.reset()
    epoch1 = [np.array(p.run()[0].as_array()) for _ in range(2)]
    assert not np.array_equal(epoch0, epoch1)
    q = pipe()
    assert np.array_equal(epoch0, [np.array(q.run()[0].as_array()) for _ in range(2)])


def test_reproducible_and_seeded():
    ru.check_reproducible_and_seeded(uniform(shape=[5]))
    ru.check_reproducible_and_seeded(uniform(shape=[5], dtype=types.INT32, range=[0, 100]))


def test_independent_of_pruned_ops_threads_and_batching():
    ru.check_independent_of_pruned_ops_threads_and_batching(uniform(shape=[5]))
    ru.check_independent_of_pruned_ops_threads_and_batching(uniform(values=[1, 2, 3]))


@pytest.mark.oracle
def test_signature_matches_real_dali():
    ru.check_signature_matches_real_dali("uniform")


# -- errors ------------------------------------------------------------------------------------

def run_uniform(**args):
    return ru.draw(uniform(**args))


@pytest.mark.parametrize("args, message", [
    (dict(range=[1, -1]), r"invalid `range` \[1.0, -1.0\).*\n\(in sample 0 of the batch\)"),
    (dict(range=[1, 1]), r"invalid `range` \[1.0, 1.0\)"),
    (dict(range=[0, float("inf")]), r"invalid `range`"),
    (dict(range=[1, 2, 3]), r"`range` must have 2 values \[start, end\), got 3"),
    (dict(range=[-1, 3], dtype=types.UINT8), r"`range` \[-1.0, 3.0\] does not fit the output "
                                             r"type uint8"),
    (dict(range=[0, 300], dtype=types.UINT8), r"does not fit"),
    (dict(values=[]), r"`values` must not be empty"),
    (dict(shape=[-1]), r"`shape` has a negative extent: \[-1\]"),
])
def test_bad_arguments(args, message):
    with pytest.raises(PipelineError, match=r"dali\.fn\.random\.uniform") as e:
        run_uniform(**args)
    assert e.match(message)


@pytest.mark.parametrize("dtype", [types.FLOAT16, types.BOOL])
def test_unsupported_types(dtype):
    with pytest.raises(PipelineError, match="data type .* is not supported; supported types "
                                            "are: uint8, uint16") as e:
        run_uniform(dtype=dtype)
    assert isinstance(e.value.__cause__, TypeError)


def test_shape_with_shape_like_is_an_error():
    with pytest.raises(PipelineError, match="`shape` cannot be given together with a "
                                            "shape-like input"):
        run_op(lambda fn, x: fn.random.uniform(x, shape=[2]), [[np.zeros(2)]])


def test_bad_shape_inputs():
    with pytest.raises(PipelineError, match="must be of an integer type"):
        run_op(lambda fn, s: fn.random.uniform(shape=s), [[np.array([1.0], np.float32)]])
    with pytest.raises(PipelineError, match="same number of dimensions in every sample"):
        run_op(lambda fn, s: fn.random.uniform(shape=s),
               [[np.array([1], np.int32), np.array([1, 2], np.int32)]])
