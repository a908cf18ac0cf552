"""dali.auto_aug.rand_augment: `n` augmentations per sample, each drawn uniformly (with
replacement), all at bin `m` with fair random signs; the suites as DALI's; errors as DALI."""

import importlib

import auto_aug_utils as utils
import numpy as np
import pytest

from dali.auto_aug import rand_augment as ra

SUITE = ["translate_x", "translate_y", "shear_x", "shear_y", "rotate", "brightness", "contrast",
         "color", "sharpness", "posterize", "solarize", "equalize", "auto_contrast", "identity"]


def marker_steps(n=2, m=4, count=4, bins=7, seed=11, num_threads=1):
    augs = utils.markers(count, bins)
    return utils.run_markers(
        lambda x: ra.apply_rand_augment(augs, x, n=n, m=m, num_magnitude_bins=bins, seed=seed),
        seed=seed, num_threads=num_threads)


def test_distribution():
    steps = marker_steps()
    assert all(len(s) == 2 for s in steps)
    first = np.array([s[0][0] for s in steps])
    second = np.array([s[1][0] for s in steps])
    pairs = np.bincount(first * 4 + second, minlength=16) / len(steps)
    np.testing.assert_allclose(pairs, 1 / 16, atol=0.03)  # independent, with replacement
    mags = np.array([m for s in steps for _, m in s])
    assert set(np.abs(mags)) == {4}
    assert 0.44 < (mags < 0).mean() < 0.56
    signs = np.array([[m < 0 for _, m in s] for s in steps])
    assert abs(np.corrcoef(signs[:, 0], signs[:, 1])[0, 1]) < 0.12


def test_n_zero_and_seed():
    assert {len(s) for s in marker_steps(n=0)} == {0}
    assert {len(s) for s in utils.run_markers(
        lambda x: ra.apply_rand_augment([], x, n=0, m=0), iterations=1)} == {0}
    with pytest.raises(ValueError, match="The `augmentations` list cannot be empty, unless "
                                         "n=0. Got empty list in `apply_rand_augment` call."):
        utils.run_markers(lambda x: ra.apply_rand_augment([], x, n=1, m=0), iterations=1)
    first = marker_steps(n=3, seed=2)
    assert marker_steps(n=3, seed=2, num_threads=3) == first
    assert marker_steps(n=3, seed=4) != first


@pytest.mark.parametrize("monotonic_mag", [True, False])
def test_images(monotonic_mag):
    imgs = utils.images()
    out = utils.run_graph(lambda pkg, x: ra.rand_augment(
        x, n=3, m=15, monotonic_mag=monotonic_mag, seed=1), [imgs])[0]
    assert [(o.shape, o.dtype) for o in out] == [(x.shape, x.dtype) for x in imgs]
    same = utils.run_graph(lambda pkg, x: ra.rand_augment(x, n=2, m=5, excluded=SUITE[:-1]),
                           [imgs])[0]
    for o, x in zip(same, imgs, strict=True):
        np.testing.assert_array_equal(o, x)


@pytest.mark.parametrize("kwargs,message", [
    ({"n": 2, "m": 31}, "The magnitude bin `m` must be an integer from `[0, 30]` range. Got 31."),
    ({"n": 2, "m": -1}, "The magnitude bin `m` must be an integer from `[0, 30]` range. Got -1."),
    ({"n": -1, "m": 3}, "The number of operations to apply `n` must be a non-negative integer, "
                        "got -1."),
    ({"n": 1, "m": 3, "num_magnitude_bins": 0},
     "The `num_magnitude_bins` must be a positive integer, got 0."),
    ({"n": 1, "m": 3, "excluded": ["nope", "rotate"]},
     "The `nope` was specified in `excluded`, but the RandAugment suite does not contain "
     "augmentation with this name."),
])
def test_errors(kwargs, message):
    with pytest.raises(ValueError) as e:
        utils.run_graph(lambda pkg, x: ra.rand_augment(x, **kwargs), [utils.images()])
    assert message in str(e.value)


@pytest.mark.oracle
@pytest.mark.parametrize("suite", ["get_rand_augment_suite",
                                   "get_rand_augment_non_monotonic_suite"])
@pytest.mark.parametrize("use_shape", [False, True])
def test_oracle_suite(suite, use_shape):
    dali_ra = pytest.importorskip("nvidia.dali.auto_aug.rand_augment")
    ours, theirs = getattr(ra, suite)(use_shape), getattr(dali_ra, suite)(use_shape)
    assert [a.name for a in ours] == [a.name for a in theirs] == SUITE
    utils.assert_same_augmentations(ours, theirs)


@pytest.mark.oracle
def test_oracle_deterministic():
    """Two steps over one non-negated augmentation: deterministic, equal to DALI's output."""
    pytest.importorskip("nvidia.dali")
    imgs = utils.images(seed=8)

    def graph(pkg, x):
        aa = importlib.import_module(pkg.__name__ + ".auto_aug.augmentations")
        ram = importlib.import_module(pkg.__name__ + ".auto_aug.rand_augment")
        return ram.apply_rand_augment([aa.posterize], x, n=2, m=20, seed=2)

    utils.assert_same_as_dali(graph, [imgs])
