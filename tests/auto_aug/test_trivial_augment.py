"""dali.auto_aug.trivial_augment: one augmentation per sample, uniformly chosen, at a uniform
magnitude bin with a fair random sign; the suite as DALI's; errors as DALI raises them."""

import importlib

import auto_aug_utils as utils
import numpy as np
import pytest

from dali.auto_aug import trivial_augment as ta

SUITE = ["translate_x", "translate_y", "shear_x", "shear_y", "rotate", "brightness", "contrast",
         "color", "sharpness", "posterize", "solarize", "equalize", "auto_contrast", "identity"]


def marker_steps(seed=11, num_threads=1, count=5, bins=7, **kwargs):
    augs = utils.markers(count, bins)
    return utils.run_markers(
        lambda x: ta.apply_trivial_augment(augs, x, num_magnitude_bins=bins, seed=seed,
                                           **kwargs), seed=seed, num_threads=num_threads)


def test_distribution():
    steps = marker_steps()
    assert all(len(s) == 1 for s in steps)
    ops = np.array([s[0][0] for s in steps])
    mags = np.array([s[0][1] for s in steps])
    n = len(steps)
    np.testing.assert_allclose(np.bincount(ops, minlength=5) / n, 0.2, atol=0.04)
    np.testing.assert_allclose(np.bincount(np.abs(mags), minlength=7) / n, 1 / 7, atol=0.04)
    nonzero = mags != 0
    assert 0.44 < (mags[nonzero] < 0).mean() < 0.56
    # the draws are independent of each other (DALI's shared seed correlates them)
    assert abs(np.corrcoef(ops, np.abs(mags))[0, 1]) < 0.1
    assert abs(np.corrcoef(ops[nonzero], mags[nonzero] < 0)[0, 1]) < 0.1


def test_seed_and_threads():
    first = marker_steps(seed=5)
    assert marker_steps(seed=5, num_threads=3) == first
    assert marker_steps(seed=6) != first


def test_single_augmentation():
    steps = marker_steps(count=1, bins=3)
    assert {s[0][0] for s in steps} == {0} and {abs(s[0][1]) for s in steps} == {0, 1, 2}


def run_wide(imgs=None, **kwargs):
    imgs = imgs or utils.images()
    return utils.run_graph(lambda pkg, x: ta.trivial_augment_wide(x, **kwargs), [imgs])[0]


def test_wide_keeps_shape_and_type():
    imgs = utils.images()
    for o, x in zip(run_wide(imgs, seed=3), imgs, strict=True):
        assert o.shape == x.shape and o.dtype == np.uint8
    shape_based = utils.run_graph(
        lambda pkg, x: ta.trivial_augment_wide(x, shape=x.shape()[:2], max_translate_rel=0.3,
                                               fill_value=None, seed=1), [imgs])[0]
    assert [o.shape for o in shape_based] == [x.shape for x in imgs]


def test_wide_excluded():
    imgs = utils.images()
    for o, x in zip(run_wide(imgs, excluded=SUITE[:-1]), imgs, strict=True):
        np.testing.assert_array_equal(o, x)


@pytest.mark.parametrize("kwargs,exc,message", [
    ({"num_magnitude_bins": 0}, ValueError,
     "The `num_magnitude_bins` must be a positive integer, got 0."),
    ({"excluded": ["foo"]}, ValueError,
     "The `foo` was specified in `excluded`, but the TrivialAugmentWide suite does not contain "
     "augmentation with this name."),
    ({"excluded": SUITE}, ValueError, "The `augmentations` list cannot be empty."),
    ({"shape": (10, 10), "max_translate_abs": 3}, ValueError,
     "The argument `max_translate_abs` cannot be used with image shapes. You may use "
     "`max_translate_rel` instead."),
    ({"max_translate_rel": 0.3}, ValueError,
     "The argument `max_translate_rel` cannot be used without image shapes. You may use "
     "`max_translate_abs` instead."),
])
def test_errors(kwargs, exc, message):
    with pytest.raises(exc) as e:
        run_wide(**kwargs)
    assert message in str(e.value)


def test_unused_kwarg():
    augs = utils.markers(2, 3)
    with pytest.raises(TypeError, match="The apply_trivial_augment got unexpected kwarg. The "
                                        "kwarg `foo` is not used by any of the augmentations."):
        utils.run_markers(lambda x: ta.apply_trivial_augment(augs, x, foo=1), iterations=1)


@pytest.mark.oracle
@pytest.mark.parametrize("use_shape", [False, True])
def test_oracle_suite(use_shape):
    dali_ta = pytest.importorskip("nvidia.dali.auto_aug.trivial_augment")
    ours = ta.get_trivial_augment_wide_suite(use_shape=use_shape)
    theirs = dali_ta.get_trivial_augment_wide_suite(use_shape=use_shape)
    assert [a.name for a in ours] == [a.name for a in theirs] == SUITE
    utils.assert_same_augmentations(ours, theirs)


@pytest.mark.oracle
@pytest.mark.parametrize("kept", ["equalize", "auto_contrast", "identity"])
def test_oracle_deterministic(kept):
    """With one augmentation, TrivialAugment is deterministic: equal to DALI's output."""
    pytest.importorskip("nvidia.dali")
    imgs = utils.images(seed=5)

    def graph(pkg, x):
        aa = importlib.import_module(pkg.__name__ + ".auto_aug.augmentations")
        tam = importlib.import_module(pkg.__name__ + ".auto_aug.trivial_augment")
        return tam.apply_trivial_augment([getattr(aa, kept)], x, seed=2)

    utils.assert_same_as_dali(graph, [imgs])


def test_unused_warp_arguments_are_dropped():
    """Unlike DALI, excluding every warp does not make `fill_value`/`interp_type` an error."""
    imgs = utils.images()
    out = run_wide(imgs, excluded=[n for n in SUITE if n != "invert" and n != "identity"])
    for o, x in zip(out, imgs, strict=True):
        np.testing.assert_array_equal(o, x)
