"""TrivialAugment (https://arxiv.org/abs/2103.10158): every sample gets one augmentation, drawn
uniformly from the suite, at a magnitude bin drawn uniformly from `[0, num_magnitude_bins - 1]`
(and, for augmentations with `randomly_negate`, a random sign)."""

from __future__ import annotations

from dali.auto_aug import _suite
from dali.auto_aug.core import _augmentation


@_suite.parameter_docs("32", "1")
def trivial_augment_wide(data, num_magnitude_bins=31, shape=None, fill_value=128,
                         interp_type=None, max_translate_abs=None, max_translate_rel=None,
                         seed=None, excluded=None):
    """Applies TrivialAugment Wide to the batch.

    Parameters
    ----------
    data : DataNode
        `uint8` images (`HWC`) or videos (`FHWC`).
    num_magnitude_bins : int, optional
        The number of bins the magnitude ranges are divided into.
    {warp_parameters}
    seed : int, optional
        Seed of the random choices of augmentations, bins and signs.
    excluded : list of str, optional
        Names of augmentations of the suite not to use.

    Returns
    -------
    DataNode
        The augmented batch.
    """
    suite = get_trivial_augment_wide_suite(shape is not None, max_translate_abs,
                                           max_translate_rel)
    augs = _suite.select_suite(suite, excluded, "TrivialAugmentWide")
    return apply_trivial_augment(augs, data, num_magnitude_bins=num_magnitude_bins, seed=seed,
                                 **_suite.suite_kwargs(augs, shape, fill_value, interp_type))


def apply_trivial_augment(augmentations, data, num_magnitude_bins=31, seed=None, **kwargs):
    """Applies the `augmentations` in TrivialAugment fashion: each sample is transformed by one
    of them, chosen at random, at a random magnitude bin from `[0, num_magnitude_bins - 1]`.

    Parameters
    ----------
    augmentations : list of Augmentation
        The augmentations to choose from.
    data : DataNode
        The batch to transform.
    num_magnitude_bins : int, optional
        The number of bins the magnitude ranges are divided into.
    seed : int, optional
        Seed of the random choices.
    kwargs
        Extra arguments passed to the augmentations that take them (`shape`, `fill_value`,
        `interp_type` for the default suite); one that none takes is an error.
    """
    _suite.check_bins(num_magnitude_bins)
    if len(augmentations) == 0:
        raise ValueError("The `augmentations` list cannot be empty. Got empty list in "
                         "`apply_trivial_augment` call.")
    _suite.forbid_unused_kwargs(augmentations, kwargs, "apply_trivial_augment")
    op_seed, bin_seed, sign_seed = _suite.seeds(seed, 3)
    magnitude_bin = _suite.uniform_ints(num_magnitude_bins, bin_seed)
    if any(aug.randomly_negate for aug in augmentations):
        magnitude_bin = _augmentation.signed_bin(magnitude_bin, seed=sign_seed)
    return _suite.apply_selected(augmentations, _suite.op_index(augmentations, op_seed), data,
                                 magnitude_bin=magnitude_bin,
                                 num_magnitude_bins=num_magnitude_bins, **kwargs)


@_suite.parameter_docs("32", "1")
def get_trivial_augment_wide_suite(use_shape=False, max_translate_abs=None,
                                   max_translate_rel=None):
    """The 14 augmentations of TrivialAugment's wide augmentation space.

    Parameters
    ----------
    {suite_parameters}
    """
    return _suite.suite(
        _suite.translations(use_shape, max_translate_abs, max_translate_rel, 32, 1.0),
        shear=(0, 0.99), rotate=(0, 135), enhancements=_suite.enhancements((0.01, 0.99)),
        posterize=(8, 2), solarize=(256, 0))
