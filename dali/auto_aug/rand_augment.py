"""RandAugment (https://arxiv.org/abs/1909.13719): every sample gets `n` augmentations in a row,
each drawn uniformly (with replacement) from the suite, all at the magnitude bin `m` (and, for
augmentations with `randomly_negate`, a random sign per step)."""

from __future__ import annotations

import numbers

from dali.auto_aug import _suite
from dali.auto_aug.core import _augmentation


@_suite.parameter_docs("100", "100/224")
def rand_augment(data, n, m, num_magnitude_bins=31, shape=None, fill_value=128,
                 interp_type=None, max_translate_abs=None, max_translate_rel=None, seed=None,
                 monotonic_mag=True, excluded=None):
    """Applies RandAugment to the batch.

    Parameters
    ----------
    data : DataNode
        `uint8` images (`HWC`) or videos (`FHWC`).
    n : int
        The number of augmentations applied to every sample.
    m : int
        The magnitude bin of every augmentation, from `[0, num_magnitude_bins - 1]`.
    num_magnitude_bins : int, optional
        The number of bins the magnitude ranges are divided into.
    {warp_parameters}
    seed : int, optional
        Seed of the random choices of augmentations and signs.
    monotonic_mag : bool, optional
        True: every augmentation gets stronger with the bin.  False: the ranges of
        `get_rand_augment_non_monotonic_suite` (posterize and solarize weaken with the bin, the
        enhancements use `(0.1, 1.9)`).
    excluded : list of str, optional
        Names of augmentations of the suite not to use.

    Returns
    -------
    DataNode
        The augmented batch.
    """
    get_suite = (get_rand_augment_suite if monotonic_mag
                 else get_rand_augment_non_monotonic_suite)
    suite = get_suite(shape is not None, max_translate_abs, max_translate_rel)
    augs = _suite.select_suite(suite, excluded, "RandAugment")
    return apply_rand_augment(augs, data, n, m, num_magnitude_bins=num_magnitude_bins,
                              seed=seed,
                              **_suite.suite_kwargs(augs, shape, fill_value, interp_type))


def apply_rand_augment(augmentations, data, n, m, num_magnitude_bins=31, seed=None, **kwargs):
    """Applies the `augmentations` in RandAugment fashion: `n` of them in a row, each drawn at
    random per sample, all at the magnitude bin `m`.

    Parameters
    ----------
    augmentations : list of Augmentation
        The augmentations to choose from.
    data : DataNode
        The batch to transform.
    n : int
        The number of augmentations applied to every sample (0: the batch as it is).
    m : int
        The magnitude bin, from `[0, num_magnitude_bins - 1]`.
    num_magnitude_bins : int, optional
        The number of bins the magnitude ranges are divided into.
    seed : int, optional
        Seed of the random choices.
    kwargs
        Extra arguments passed to the augmentations that take them; one that none takes is
        an error.
    """
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 0:
        raise ValueError("The number of operations to apply `n` must be a non-negative integer, "
                         f"got {n}.")
    _suite.check_bins(num_magnitude_bins)
    if (not isinstance(m, numbers.Integral) or isinstance(m, bool)
            or not 0 <= m < num_magnitude_bins):
        raise ValueError(f"The magnitude bin `m` must be an integer from "
                         f"`[0, {num_magnitude_bins - 1}]` range. Got {m}.")
    if n == 0:
        return data
    if len(augmentations) == 0:
        raise ValueError("The `augmentations` list cannot be empty, unless n=0. Got empty list "
                         "in `apply_rand_augment` call.")
    _suite.forbid_unused_kwargs(augmentations, kwargs, "apply_rand_augment")
    op_seed, sign_seed = _suite.seeds(seed, 2)
    bins = None
    if any(aug.randomly_negate for aug in augmentations):
        bins = _augmentation.signed_bin(m, seed=sign_seed, shape=(n,))
    op_idx = _suite.op_index(augmentations, op_seed, shape=(n,))
    for step in range(n):
        magnitude_bin = m if bins is None else bins[step]
        data = _suite.apply_selected(augmentations, None if op_idx is None else op_idx[step],
                                     data, magnitude_bin=magnitude_bin,
                                     num_magnitude_bins=num_magnitude_bins, **kwargs)
    return data


@_suite.parameter_docs("100", "100/224")
def get_rand_augment_suite(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """The 14 augmentations of RandAugment, all stronger with higher magnitude bins.

    Parameters
    ----------
    {suite_parameters}
    """
    return _suite.suite(
        _suite.translations(use_shape, max_translate_abs, max_translate_rel, 100, 100 / 224),
        shear=(0, 0.3), rotate=(0, 30), enhancements=_suite.enhancements((0, 0.9)),
        posterize=(8, 4), solarize=(256, 0))


def get_rand_augment_non_monotonic_suite(use_shape=False, max_translate_abs=None,
                                         max_translate_rel=None):
    """Like `get_rand_augment_suite`, with the AutoAugment ranges for brightness, contrast,
    color, sharpness (`(0.1, 1.9)`, not negated), posterize (`(0, 4)`) and solarize
    (`(0, 256)`): those do not get stronger with the bin."""
    return _suite.suite(
        _suite.translations(use_shape, max_translate_abs, max_translate_rel, 100, 100 / 224),
        shear=(0, 0.3), rotate=(0, 30), enhancements=_suite.shifted_enhancements(),
        posterize=(0, 4), solarize=(0, 256))
