"""What the suites share: the 14 augmentations of RandAugment's and TrivialAugment's suites
(translations bounded by pixels or by the image shape) and the documentation of their
arguments, the check that every extra keyword argument is used, the `excluded` filter, the
per-draw seeds and the per-sample choice of an augmentation."""

from __future__ import annotations

import numbers
import re
import textwrap

import numpy as np

from dali import fn, types
from dali.auto_aug import augmentations
from dali.auto_aug.core import _select


def _pair(value, name):
    pair = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(pair) != 2 or not all(isinstance(v, numbers.Real) for v in pair):
        raise ValueError(f"The `{name}` must be a number or a pair of numbers (height, width), "
                         f"got {value!r}.")
    return pair


def translations(use_shape, max_translate_abs, max_translate_rel, default_abs, default_rel):
    """`[translate_x, translate_y]` with magnitude ranges `(0, max width/height shift)`: relative
    to the `shape` argument when `use_shape`, in pixels otherwise."""
    a = augmentations
    if use_shape:
        used, unused, default = "max_translate_rel", "max_translate_abs", default_rel
        translate_x, translate_y = a.translate_x, a.translate_y
    else:
        used, unused, default = "max_translate_abs", "max_translate_rel", default_abs
        translate_x, translate_y = a.translate_x_no_shape, a.translate_y_no_shape
    given = {"max_translate_abs": max_translate_abs, "max_translate_rel": max_translate_rel}
    if given[unused] is not None:
        shapes = "with" if use_shape else "without"
        raise ValueError(f"The argument `{unused}` cannot be used {shapes} image shapes. You may "
                         f"use `{used}` instead.")
    h, w = _pair(default if given[used] is None else given[used], used)
    return [translate_x.augmentation(mag_range=(0, w)), translate_y.augmentation(mag_range=(0, h))]


def suite(translate, *, shear, rotate, enhancements, posterize, solarize):
    """RandAugment's and TrivialAugment's 14 augmentations in DALI's order: the two `translate`
    augmentations, the shears and the rotation with magnitude ranges `shear` and `rotate`, the four
    `enhancements`, posterize and solarize with ranges `posterize` and `solarize`, then
    equalize, auto_contrast and identity."""
    a = augmentations
    return [*translate,
            a.shear_x.augmentation(mag_range=shear),
            a.shear_y.augmentation(mag_range=shear),
            a.rotate.augmentation(mag_range=rotate),
            *enhancements,
            a.posterize.augmentation(mag_range=posterize),
            a.solarize.augmentation(mag_range=solarize),
            a.equalize, a.auto_contrast, a.identity]


def enhancements(mag_range):
    """Brightness, contrast, color and sharpness with the magnitude range `mag_range`."""
    a = augmentations
    return [aug.augmentation(mag_range=mag_range)
            for aug in (a.brightness, a.contrast, a.color, a.sharpness)]


def shifted_enhancements():
    """Brightness, contrast, color and sharpness with AutoAugment's ranges: `(0.1, 1.9)`, not
    negated (factors around the identity 1, so they do not get stronger with the bin)."""
    a = augmentations
    shifted = {"mag_range": (0.1, 1.9), "randomly_negate": False}
    return [*(aug.augmentation(mag_to_param=None, **shifted)
              for aug in (a.brightness, a.contrast, a.color)),
            a.sharpness.augmentation(mag_to_param=a.sharpness_kernel_shifted, **shifted)]


def forbid_unused_kwargs(augs, kwargs, call_name):
    """Raise when a keyword argument is used by none of `augs`."""
    used = _extra_kwargs(augs)
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
    used = _extra_kwargs(augs)
    return {k: v for k, v in kwargs.items() if k in used}


def _extra_kwargs(augs):
    """The names of the keyword arguments that some of `augs` take."""
    return set().union(*(aug._extra for aug in augs))


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


def uniform_ints(count, seed, shape=None):
    """Per sample, an integer drawn uniformly from `[0, count - 1]` (`shape` of them, with
    `shape`)."""
    shape_kwargs = {} if shape is None else {"shape": shape}
    return fn.random.uniform(values=list(range(count)), dtype=types.INT32, **shape_kwargs,
                             **seed_kwargs(seed))


def op_index(augs, seed, shape=None):
    """Per sample, the index of one of `augs` drawn uniformly (as `uniform_ints`); None for a
    single augmentation, which needs no draw."""
    return None if len(augs) == 1 else uniform_ints(len(augs), seed, shape)


def apply_selected(augs, op_idx, data, **kwargs):
    """Applies `augs[op_idx]` to every sample (`op_idx` None: the only augmentation)."""
    if op_idx is None:
        return augs[0](data, **kwargs)
    return _select.select(augs, op_idx, data, **kwargs)


_PARAMETER_DOCS = {
    "warp_parameters": """\
shape : DataNode or (int, int), optional
    The (height, width) of the images or frames: translations then shift by up to
    `max_translate_rel` times it, otherwise by up to `max_translate_abs` pixels.
fill_value : int, optional
    Padding of the translated, sheared and rotated images; None repeats the border.
interp_type : types.DALIInterpType, optional
    Interpolation of those warps (`INTERP_LINEAR` by default, or `INTERP_NN`).
max_translate_abs : int or (int, int), optional
    Largest shift in pixels (height, width) without `shape`; {abs} by default.
max_translate_rel : float or (float, float), optional
    Largest shift as a fraction of the shape, with `shape`; {rel} by default.""",
    "suite_parameters": """\
use_shape : bool
    Translations relative to the image shape (`max_translate_rel`, default {rel}) instead
    of bounded in pixels (`max_translate_abs`, default {abs}).
max_translate_abs : int or (int, int), optional
    Largest shift in pixels (height, width); only without `use_shape`.
max_translate_rel : float or (float, float), optional
    Largest shift as a fraction of the shape; only with `use_shape`.""",
}


def parameter_docs(max_translate_abs, max_translate_rel):
    """Decorator: a docstring line `{warp_parameters}` (of the entry points) or
    `{suite_parameters}` (of the suites and policies) becomes the documentation of those
    parameters, at the line's indentation, with these default largest shifts."""
    def fill(match):
        text = _PARAMETER_DOCS[match[2]].format(abs=max_translate_abs, rel=max_translate_rel)
        return textwrap.indent(text, match[1])

    def decorate(function):
        if function.__doc__ is not None:  # None under `python -OO`
            function.__doc__ = re.sub(r"^( *)\{(\w+)\}$", fill, function.__doc__, flags=re.M)
        return function

    return decorate
