"""dali.auto_aug.core: the @augmentation decorator, Augmentation, signed_bin, select, Policy."""

import warnings

import auto_aug_utils as utils
import numpy as np
import pytest

from dali import fn, pipeline_def, types
from dali.auto_aug import augmentations as A
from dali.auto_aug import trivial_augment
from dali.auto_aug.core import Augmentation, Policy, augmentation, select, signed_bin


def test_decorator_forms_and_properties():
    def op(data, param, fill_value=3, *, extra=None):
        return data

    plain = augmentation(op)
    assert isinstance(plain, Augmentation) and plain.name == "op" and plain.mag_range is None
    assert not plain.randomly_negate and plain.param_device == "cpu" and plain.op is op
    configured = augmentation(mag_range=(1, 2), randomly_negate=True, name="x")(op)
    assert configured.name == "x" and configured.mag_range == (1, 2)
    assert configured.randomly_negate
    assert repr(configured).startswith("Augmentation(<function") and "mag_range=(1, 2)" in repr(
        configured)
    updated = configured.augmentation(mag_range=(0, 5), param_device="auto")
    assert updated.mag_range == (0, 5) and updated.randomly_negate and updated.name == "x"
    assert updated.param_device == "auto" and configured.mag_range == (1, 2)


def test_decorator_errors():
    with pytest.raises(TypeError, match="must accept at least two positional arguments"):
        augmentation(lambda data: data)
    with pytest.raises(ValueError, match="`mag_range` must be a pair"):
        augmentation(lambda d, p: d, mag_range=(1,))
    with pytest.raises(ValueError, match="`param_device` must be one of"):
        augmentation(lambda d, p: d, param_device="tpu")


def run_rotate(**call):
    imgs = utils.images()[:2]
    return utils.run_graph(lambda pkg, x: A.rotate(x, **call), [imgs])


def test_call_errors():
    with pytest.raises(ValueError, match="`num_magnitude_bins` argument is missing in the call "
                                         "of the `rotate` augmentation"):
        run_rotate()
    with pytest.raises(ValueError, match="`magnitude_bin` argument is missing"):
        run_rotate(num_magnitude_bins=11)
    with pytest.raises(IndexError, match=r"must be an integer from `\[0, 10\]` range. Got `11`"):
        run_rotate(magnitude_bin=11, num_magnitude_bins=11)
    with pytest.raises(ValueError, match="`num_magnitude_bins` must be a positive integer"):
        run_rotate(magnitude_bin=0, num_magnitude_bins=0)
    arr = A.rotate.augmentation(mag_range=np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="has nd.array of length 3 specified as the `mag_range`."
                                         " However, the `num_magnitude_bins` passed to the call "
                                         "is 4"):
        utils.run_graph(lambda pkg, x: arr(x, magnitude_bin=1, num_magnitude_bins=4),
                        [utils.images()[:1]])


def test_unsigned_bin_warns_and_extra_kwargs_are_filtered():
    with pytest.warns(Warning, match="declared with `random_negate=True`, but unsigned"):
        out = run_rotate(magnitude_bin=0, num_magnitude_bins=11, fill_value=7, unrelated=1)
    np.testing.assert_array_equal(out[0][0], utils.images()[0])


def test_array_mag_range_and_int_bins():
    """An explicit magnitudes array, an int bin and a batch of bins give the same parameter."""
    aug = augmentation(lambda d, p: d * 0 + p, mag_range=np.array([5.0, -2.0, 9.5]))
    ones = [np.ones((), np.float32)] * 3
    bins = [np.array(b, np.int32) for b in (2, 0, 1)]
    (per_sample,) = utils.run_graph(
        lambda pkg, x, b: aug(x, magnitude_bin=b, num_magnitude_bins=3), [ones, bins],
        layouts=[None, None])
    assert [float(v) for v in per_sample] == [9.5, 5.0, -2.0]
    (const,) = utils.run_graph(lambda pkg, x: aug(x, magnitude_bin=2, num_magnitude_bins=3),
                               [ones], layouts=[None])
    assert [float(v) for v in const] == [9.5] * 3
    (last,) = utils.run_graph(lambda pkg, x: aug(x, magnitude_bin=-2, num_magnitude_bins=3),
                              [ones], layouts=[None])   # an int bin indexes as in NumPy
    assert [float(v) for v in last] == [-2.0] * 3


def test_signed_bin_negates_only_randomly_negated():
    neg = augmentation(lambda d, p: d * 0 + p, mag_range=(0, 10), randomly_negate=True)
    pos = augmentation(lambda d, p: d * 0 + p, mag_range=(0, 10))
    ones = [np.ones((), np.float32)] * 4
    bins = [np.array(b, np.int32) for b in (1, 2, 3, 4)]
    signs = [np.array(s, np.int32) for s in (0, 1, 0, 1)]

    def graph(pkg, x, b, s):
        sb = signed_bin(b, s)
        return neg(x, magnitude_bin=sb, num_magnitude_bins=11), pos(
            x, magnitude_bin=sb, num_magnitude_bins=11)

    n, p = utils.run_graph(graph, [ones, bins, signs], layouts=[None] * 3)
    assert [float(v) for v in n] == [1, -2, 3, -4]
    assert [float(v) for v in p] == [1, 2, 3, 4]


def test_signed_bin_draws_fair_signs():
    neg = augmentation(lambda d, p: d * 0 + p, mag_range=(0, 10), randomly_negate=True)
    zeros = [np.zeros((), np.float32)] * 512
    (out,) = utils.run_graph(
        lambda pkg, x: neg(x, magnitude_bin=signed_bin(5, seed=3), num_magnitude_bins=11),
        [zeros], layouts=[None])
    values = np.array([float(v) for v in out])
    assert set(values) == {5.0, -5.0}
    assert 0.42 < (values < 0).mean() < 0.58


def test_select_routes_each_sample():
    ops = [lambda d, k=k: d * 0 + types.Constant(np.float32(k)) for k in range(5)]
    zeros = [np.zeros((), np.float32)] * 10
    idx = [np.array(i % 5, np.int32) for i in (3, 0, 4, 4, 1, 2, 0, 3, 1, 2)]
    (out,) = utils.run_graph(lambda pkg, x, i: select(ops, i, x), [zeros, idx],
                             layouts=[None, None])
    assert [float(v) for v in out] == [float(i) for i in idx]
    with pytest.raises(ValueError, match="cannot be empty"):
        utils.run_graph(lambda pkg, x, i: select([], i, x), [zeros, idx], layouts=[None, None])


def test_policy_checks_and_repr():
    with pytest.raises(ValueError, match=r"must be a number from `\[0, 1\]` range. Got `1.5` "
                                         "for augmentation `rotate`"):
        Policy("x", 11, [[(A.rotate, 1.5, 3)]])
    with pytest.raises(ValueError, match="`num_magnitude_bins` must be a positive integer, "
                                         "got 0"):
        Policy("x", 0, [[(A.rotate, 0.5, 3)]])
    with pytest.raises(ValueError, match=r"must be an integer from `\[0, 10\]` range. Got `11` "
                                         "for augmentation `rotate`"):
        Policy("x", 11, [[(A.rotate, 0.5, 11)]])
    with pytest.raises(ValueError, match="`rotate` has `mag_range` specified, so the magnitude "
                                         "bin is required. However, got `None` in the policy "
                                         "`x`"):
        Policy("x", 11, [[(A.rotate, 0.5, None)]])
    p = Policy("x", 11, [[(A.rotate, 0.5, 3)], [(A.rotate.augmentation(mag_range=(0, 5)),
                                                   0.5, 3), (A.invert, 0.2, 3)]])
    assert list(p.augmentations) == ["0__rotate", "1__rotate", "invert"]
    assert "('1__rotate', 0.5, 3)" in repr(p) and repr(p).startswith("Policy(name='x'")
    assert Policy("e", 11, []).augmentations == {}


def test_random_sign_under_split_is_drawn_once():
    """A sign drawn before the split (signed_bin) is the one every branch sees."""
    neg = augmentation(lambda d, p: d * 0 + p, mag_range=(0, 10), randomly_negate=True)
    other = augmentation(lambda d, p: d * 0 - p, mag_range=(0, 10), randomly_negate=True)
    zeros = [np.zeros((), np.float32)] * 64

    def graph(pkg, x):
        sb = signed_bin(fn.random.uniform(values=[7], dtype=types.INT32), seed=9)
        idx = fn.random.uniform(values=[0, 1], dtype=types.INT32, seed=4)
        out = select([neg, other], idx, x, magnitude_bin=sb, num_magnitude_bins=11)
        return out, sb.random_sign, idx

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, sign, idx = utils.run_graph(graph, [zeros], layouts=[None])
    for v, s, i in zip(out, sign, idx, strict=True):
        expected = 7.0 * (-1 if int(s) else 1) * (-1 if int(i) else 1)
        assert float(v) == expected


def test_needs_enable_conditionals():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(lambda: utils.images()[:2], layout="HWC")
        return trivial_augment.trivial_augment_wide(x)

    with pytest.raises(TypeError, match="you need to specify `enable_conditionals=True`"):
        pipe()
