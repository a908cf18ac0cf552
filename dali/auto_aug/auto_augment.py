"""AutoAugment (https://arxiv.org/abs/1805.09501): every sample gets one sub-policy of the
policy, drawn uniformly; its steps run in order, each applying its augmentation with the
step's probability at the step's magnitude bin (signed at random for augmentations with
`randomly_negate`).

Stage `k` of all sub-policies is one conditional: a per-sample table lookup (by the drawn
sub-policy) gives the step's probability, augmentation and bin; the samples whose uniform draw
falls below the probability go through `select` over the augmentations used at stage `k`.
"""

from __future__ import annotations

import numpy as np

from dali import fn, types
from dali.auto_aug import _suite, augmentations
from dali.auto_aug.core import _augmentation, _select
from dali.auto_aug.core.policy import Policy

_POLICIES = ("image_net", "reduced_image_net", "svhn", "reduced_cifar10")


@_suite.parameter_docs("250", "1")
def auto_augment(data, policy_name="image_net", shape=None, fill_value=128, interp_type=None,
                 max_translate_abs=None, max_translate_rel=None, seed=None):
    """Applies one of the AutoAugment paper's policies to the batch.

    Parameters
    ----------
    data : DataNode
        `uint8` images (`HWC`) or videos (`FHWC`).
    policy_name : str, optional
        `image_net` (default), `reduced_image_net`, `svhn` or `reduced_cifar10`.
    {warp_parameters}
    seed : int, optional
        Seed of the random choices of sub-policies, steps and signs.

    Returns
    -------
    DataNode
        The augmented batch.
    """
    if policy_name not in _POLICIES:
        raise ValueError("The `policy_name` must be a string that takes one of the values: "
                         + ", ".join(f"`{p}`" for p in _POLICIES))
    if policy_name == "reduced_image_net":
        for name, value in (("shape", shape), ("max_translate_abs", max_translate_abs),
                            ("max_translate_rel", max_translate_rel)):
            if value is not None:
                raise ValueError(
                    f"The policy `{policy_name}` does not contain any augmentations that rely "
                    f"on the image shape. The `{name}` argument must not be specified in that "
                    "case.")
        policy = get_reduced_image_net_policy()
    else:
        get_policy = {"image_net": get_image_net_policy, "svhn": get_svhn_policy,
                      "reduced_cifar10": get_reduced_cifar10_policy}[policy_name]
        policy = get_policy(shape is not None, max_translate_abs, max_translate_rel)
    augs = policy.augmentations.values()
    return apply_auto_augment(policy, data, seed=seed,
                              **_suite.suite_kwargs(augs, shape, fill_value, interp_type))


def auto_augment_image_net(data, shape=None, fill_value=128, interp_type=None,
                           max_translate_abs=None, max_translate_rel=None, seed=None):
    """`auto_augment` with `policy_name="image_net"`."""
    return auto_augment(data, "image_net", shape, fill_value, interp_type, max_translate_abs,
                        max_translate_rel, seed)


def apply_auto_augment(policy, data, seed=None, **kwargs):
    """Applies the `policy` in AutoAugment fashion.

    Parameters
    ----------
    policy : Policy
        The sub-policies to draw from.
    data : DataNode
        The batch to transform.
    seed : int, optional
        Seed of the random choices.
    kwargs
        Extra arguments passed to the augmentations that take them (`shape`, `fill_value`,
        `interp_type` for the predefined policies); one that none takes is an error.
    """
    augs = policy.augmentations
    subs = policy.sub_policies
    if not subs:
        raise ValueError(f"Cannot run empty policy. Got {policy!r} in `apply_auto_augment` "
                         "call.")
    _suite.forbid_unused_kwargs(augs.values(), kwargs, "apply_auto_augment")
    stages = max((len(sub) for sub in subs), default=0)
    if stages == 0:
        return data
    run_seed, sub_seed, sign_seed = _suite.seeds(seed, 3)
    should_run = fn.random.uniform(range=[0, 1], shape=(stages,), dtype=types.FLOAT,
                                   **_suite.seed_kwargs(run_seed))
    sub_id = _suite.uniform_ints(len(subs), sub_seed)
    signs = None
    if any(aug.randomly_negate for aug in augs.values()):
        signs = _suite.uniform_ints(2, sign_seed, shape=(stages,))
    for stage in range(stages):
        data = _stage(subs, stage, data, should_run[stage], sub_id,
                      None if signs is None else signs[stage], policy.num_magnitude_bins,
                      kwargs)
    return data


def _stage(subs, stage, data, should_run, sub_id, sign, num_magnitude_bins, kwargs):
    """Step `stage` of every sample's sub-policy."""
    used = []
    for sub in subs:
        if stage < len(sub) and all(sub[stage][0] is not a for a in used):
            used.append(sub[stage][0])
    probs = np.zeros(len(subs), np.float32)
    ops = np.zeros(len(subs), np.int32)
    bins = np.zeros(len(subs), np.int32)
    for k, sub in enumerate(subs):
        if stage < len(sub):
            aug, p, mag = sub[stage]
            probs[k] = p
            ops[k] = next(i for i, a in enumerate(used) if a is aug)
            bins[k] = 0 if mag is None else mag
    if not probs.any():
        return data
    magnitude_bin = types.Constant(bins)[sub_id]
    if sign is not None:
        magnitude_bin = _augmentation.signed_bin(magnitude_bin, random_sign=sign)
    op_kwargs = {"magnitude_bin": magnitude_bin, "num_magnitude_bins": num_magnitude_bins,
                 **kwargs}
    op_idx = None if len(used) == 1 else types.Constant(ops)[sub_id]
    return _select.if_else(should_run < types.Constant(probs)[sub_id],
                           lambda: _suite.apply_selected(used, op_idx, data, **op_kwargs),
                           lambda: data)


# -- the policies -----------------------------------------------------------------------------
def _policy_augmentations(use_shape, max_translate_abs, max_translate_rel):
    a = augmentations
    translate_x, translate_y = _suite.translations(use_shape, max_translate_abs,
                                                   max_translate_rel, 250, 1.0)
    brightness, contrast, color, sharpness = _suite.shifted_enhancements()
    return {"shear_x": a.shear_x, "shear_y": a.shear_y, "translate_x": translate_x,
            "translate_y": translate_y, "rotate": a.rotate, "color": color,
            "contrast": contrast, "brightness": brightness, "sharpness": sharpness,
            "posterize": a.posterize, "solarize": a.solarize.augmentation(mag_range=(0, 256)),
            "solarize_add": a.solarize_add, "invert": a.invert, "equalize": a.equalize,
            "auto_contrast": a.auto_contrast}


def _policy(name, table, use_shape=False, max_translate_abs=None, max_translate_rel=None):
    augs = _policy_augmentations(use_shape, max_translate_abs, max_translate_rel)
    return Policy(name, 11, [[(augs[op], p, mag) for op, p, mag in sub] for sub in table])


_IMAGE_NET = [
    [("equalize", 0.8, None), ("shear_y", 0.8, 4)],
    [("color", 0.4, 9), ("equalize", 0.6, None)],
    [("color", 0.4, 1), ("rotate", 0.6, 8)],
    [("solarize", 0.8, 3), ("equalize", 0.4, None)],
    [("solarize", 0.4, 2), ("solarize", 0.6, 2)],
    [("color", 0.2, 0), ("equalize", 0.8, None)],
    [("equalize", 0.4, None), ("solarize_add", 0.8, 3)],
    [("shear_x", 0.2, 9), ("rotate", 0.6, 8)],
    [("color", 0.6, 1), ("equalize", 1.0, None)],
    [("invert", 0.4, None), ("rotate", 0.6, 0)],
    [("equalize", 1.0, None), ("shear_y", 0.6, 3)],
    [("color", 0.4, 7), ("equalize", 0.6, None)],
    [("posterize", 0.4, 6), ("auto_contrast", 0.4, None)],
    [("solarize", 0.6, 8), ("color", 0.6, 9)],
    [("solarize", 0.2, 4), ("rotate", 0.8, 9)],
    [("rotate", 1.0, 7), ("translate_y", 0.8, 9)],
    [("solarize", 0.8, 4)],
    [("shear_y", 0.8, 0), ("color", 0.6, 4)],
    [("color", 1.0, 0), ("rotate", 0.6, 2)],
    [("equalize", 0.8, None)],
    [("equalize", 1.0, None), ("auto_contrast", 0.6, None)],
    [("shear_y", 0.4, 7), ("solarize_add", 0.6, 7)],
    [("posterize", 0.8, 2), ("solarize", 0.6, 10)],
    [("solarize", 0.6, 8), ("equalize", 0.6, None)],
    [("color", 0.8, 6), ("rotate", 0.4, 5)],
]

_REDUCED_IMAGE_NET = [
    [("posterize", 0.4, 8), ("rotate", 0.6, 9)],
    [("solarize", 0.6, 5), ("auto_contrast", 0.6, None)],
    [("equalize", 0.8, None), ("equalize", 0.6, None)],
    [("posterize", 0.6, 7), ("posterize", 0.6, 6)],
    [("equalize", 0.4, None), ("solarize", 0.2, 4)],
    [("equalize", 0.4, None), ("rotate", 0.8, 8)],
    [("solarize", 0.6, 3), ("equalize", 0.6, None)],
    [("posterize", 0.8, 5), ("equalize", 1.0, None)],
    [("rotate", 0.2, 3), ("solarize", 0.6, 8)],
    [("equalize", 0.6, None), ("posterize", 0.4, 6)],
    [("rotate", 0.8, 8), ("color", 0.4, 0)],
    [("rotate", 0.4, 9), ("equalize", 0.6, None)],
    [("equalize", 0.8, None)],
    [("invert", 0.6, None), ("equalize", 1.0, None)],
    [("color", 0.6, 4), ("contrast", 1.0, 8)],
    [("rotate", 0.8, 8), ("color", 1.0, 2)],
    [("color", 0.8, 8), ("solarize", 0.8, 7)],
    [("sharpness", 0.4, 7), ("invert", 0.6, None)],
    [("shear_x", 0.6, 5), ("equalize", 1.0, None)],
    [("color", 0.4, 0), ("equalize", 0.6, None)],
    [("equalize", 0.4, None), ("solarize", 0.2, 4)],
    [("solarize", 0.6, 5), ("auto_contrast", 0.6, None)],
    [("invert", 0.6, None), ("equalize", 1.0, None)],
    [("color", 0.6, 4), ("contrast", 1.0, 8)],
    [("equalize", 0.8, None), ("equalize", 0.6, None)],
]

_SVHN = [
    [("shear_x", 0.9, 4), ("invert", 0.2, None)],
    [("shear_y", 0.9, 8), ("invert", 0.7, None)],
    [("equalize", 0.6, None), ("solarize", 0.6, 6)],
    [("invert", 0.9, None), ("equalize", 0.6, None)],
    [("equalize", 0.6, None), ("rotate", 0.9, 3)],
    [("shear_x", 0.9, 4), ("auto_contrast", 0.8, None)],
    [("shear_y", 0.9, 8), ("invert", 0.4, None)],
    [("shear_y", 0.9, 5), ("solarize", 0.2, 6)],
    [("invert", 0.9, None), ("auto_contrast", 0.8, None)],
    [("equalize", 0.6, None), ("rotate", 0.9, 3)],
    [("shear_x", 0.9, 4), ("solarize", 0.3, 3)],
    [("shear_y", 0.8, 8), ("invert", 0.7, None)],
    [("equalize", 0.9, None), ("translate_y", 0.6, 6)],
    [("invert", 0.9, None), ("equalize", 0.6, None)],
    [("contrast", 0.3, 3), ("rotate", 0.8, 4)],
    [("invert", 0.8, None)],
    [("shear_y", 0.7, 6), ("solarize", 0.4, 8)],
    [("invert", 0.6, None), ("rotate", 0.8, 4)],
    [("shear_y", 0.3, 7), ("translate_x", 0.9, 3)],
    [("shear_x", 0.1, 6), ("invert", 0.6, None)],
    [("solarize", 0.7, 2), ("translate_y", 0.6, 7)],
    [("shear_y", 0.8, 4), ("invert", 0.8, None)],
    [("shear_x", 0.7, 9), ("translate_y", 0.8, 3)],
    [("shear_y", 0.8, 5), ("auto_contrast", 0.7, None)],
    [("shear_x", 0.7, 2), ("invert", 0.1, None)],
]

_REDUCED_CIFAR10 = [
    [("invert", 0.1, None), ("contrast", 0.2, 6)],
    [("rotate", 0.7, 2), ("translate_x", 0.3, 9)],
    [("sharpness", 0.8, 1), ("sharpness", 0.9, 3)],
    [("shear_y", 0.5, 8), ("translate_y", 0.7, 9)],
    [("auto_contrast", 0.5, None), ("equalize", 0.9, None)],
    [("shear_y", 0.2, 7), ("posterize", 0.3, 7)],
    [("color", 0.4, 3), ("brightness", 0.6, 7)],
    [("sharpness", 0.3, 9), ("brightness", 0.7, 9)],
    [("equalize", 0.6, None), ("equalize", 0.5, None)],
    [("contrast", 0.6, 7), ("sharpness", 0.6, 5)],
    [("color", 0.7, 7), ("translate_x", 0.5, 8)],
    [("equalize", 0.3, None), ("auto_contrast", 0.4, None)],
    [("translate_y", 0.4, 3), ("sharpness", 0.2, 6)],
    [("brightness", 0.9, 6), ("color", 0.2, 8)],
    [("solarize", 0.5, 2)],
    [("equalize", 0.2, None), ("auto_contrast", 0.6, None)],
    [("equalize", 0.2, None), ("equalize", 0.6, None)],
    [("color", 0.9, 9), ("equalize", 0.6, None)],
    [("auto_contrast", 0.8, None), ("solarize", 0.2, 8)],
    [("brightness", 0.1, 3), ("color", 0.7, 0)],
    [("solarize", 0.4, 5), ("auto_contrast", 0.9, None)],
    [("translate_y", 0.9, 9), ("translate_y", 0.7, 9)],
    [("auto_contrast", 0.9, None), ("solarize", 0.8, 3)],
    [("equalize", 0.8, None), ("invert", 0.1, None)],
    [("translate_y", 0.7, 9), ("auto_contrast", 0.9, None)],
]


@_suite.parameter_docs("250", "1")
def get_image_net_policy(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """The policy tuned on ImageNet in the AutoAugment paper.

    Parameters
    ----------
    {suite_parameters}
    """
    return _policy("ImageNetPolicy", _IMAGE_NET, use_shape, max_translate_abs,
                   max_translate_rel)


def get_reduced_image_net_policy():
    """The policy tuned on reduced ImageNet in the AutoAugment paper (no translations)."""
    return _policy("ReducedImageNetPolicy", _REDUCED_IMAGE_NET)


def get_svhn_policy(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """The policy tuned on SVHN in the AutoAugment paper; arguments as in
    `get_image_net_policy`."""
    return _policy("SvhnPolicy", _SVHN, use_shape, max_translate_abs, max_translate_rel)


def get_reduced_cifar10_policy(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """The policy tuned on reduced CIFAR-10 in the AutoAugment paper; arguments as in
    `get_image_net_policy`."""
    return _policy("ReducedCifar10Policy", _REDUCED_CIFAR10, use_shape, max_translate_abs,
                   max_translate_rel)
