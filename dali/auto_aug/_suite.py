"""What the suites share: translation augmentations bounded by pixels or by the image shape,
the check that every extra keyword argument is used, the `excluded` filter and the per-draw
seeds."""

from __future__ import annotations

import numbers

import numpy as np

from dali.auto_aug import augmentations


def _pair(value, name):
    if isinstance(value, (tuple, list)):
        if len(value) != 2 or not all(isinstance(v, numbers.Real) for v in value):
            raise ValueError(f"The `{name}` must be a number or a pair of numbers (height, "
                             f"width), got {value!r}.")
        return tuple(value)
    if not isinstance(value, numbers.Real):
        raise ValueError(f"The `{name}` must be a number or a pair of numbers (height, width), "
                         f"got {value!r}.")
    return value, value


def translations(use_shape, max_translate_abs, max_translate_rel, default_abs, default_rel):
    """`[translate_x, translate_y]` with magnitude ranges `(0, max width/height shift)`: relative
    to the `shape` argument when `use_shape`, in pixels otherwise."""
    if use_shape:
        if max_translate_abs is not None:
            raise ValueError("The argument `max_translate_abs` cannot be used with image "
                             "shapes. You may use `max_translate_rel` instead.")
        h, w = _pair(default_rel if max_translate_rel is None else max_translate_rel,
                     "max_translate_rel")
        return [augmentations.translate_x.augmentation(mag_range=(0, w)),
                augmentations.translate_y.augmentation(mag_range=(0, h))]
    if max_translate_rel is not None:
        raise ValueError("The argument `max_translate_rel` cannot be used without image "
                         "shapes. You may use `max_translate_abs` instead.")
    h, w = _pair(default_abs if max_translate_abs is None else max_translate_abs,
                 "max_translate_abs")
    return [augmentations.translate_x_no_shape.augmentation(mag_range=(0, w)),
            augmentations.translate_y_no_shape.augmentation(mag_range=(0, h))]


def forbid_unused_kwargs(augs, kwargs, call_name):
    """Raise when a keyword argument is used by none of `augs`."""
    used = set()
    for aug in augs:
        used.update(aug._extra)
    unused = [k for k in kwargs if k not in used]
    if unused:
        noun = "kwarg" if len(unused) == 1 else "kwargs"
        verb = "is" if len(unused) == 1 else "are"
        raise TypeError(f"The {call_name} got unexpected {noun}. The {noun} "
                        f"`{', '.join(unused)}` {verb} not used by any of the augmentations.")


def select_suite(suite, excluded, suite_name):
    """The augmentations of `suite` whose names are not in `excluded`."""
    excluded = list(excluded or [])
    names = {aug.name for aug in suite}
    for name in excluded:
        if name not in names:
            raise ValueError(
                f"The `{name}` was specified in `excluded`, but the {suite_name} suite does not "
                "contain augmentation with this name. The augmentations in the suite are: "
                f"{', '.join(aug.name for aug in suite)}.")
    return [aug for aug in suite if aug.name not in excluded]


def suite_kwargs(augs, shape, fill_value, interp_type):
    """The keyword arguments of the suites' entry points, limited to those `augs` use."""
    kwargs = {"fill_value": fill_value, "interp_type": interp_type}
    if shape is not None:
        kwargs["shape"] = shape
    used = set()
    for aug in augs:
        used.update(aug._extra)
    return {k: v for k, v in kwargs.items() if k in used}


def check_bins(num_magnitude_bins):
    if (not isinstance(num_magnitude_bins, numbers.Integral)
            or isinstance(num_magnitude_bins, bool) or num_magnitude_bins < 1):
        raise ValueError(f"The `num_magnitude_bins` must be a positive integer, got "
                         f"{num_magnitude_bins}.")


def seeds(seed, count):
    """`count` seeds for the random draws of one call: None each without a `seed`, otherwise
    independent seeds derived from it (so the draws are not correlated)."""
    if seed is None:
        return [None] * count
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(count) % (2 ** 31)]


def seed_kwargs(seed):
    return {} if seed is None else {"seed": seed}
