"""The `@augmentation` decorator."""

from __future__ import annotations

from dali.auto_aug.core import _augmentation


def augmentation(function=None, *, mag_range=None, randomly_negate=None, mag_to_param=None,
                 param_device=None, name=None, augmentation_cls=None):
    """Turns a transformation written with dali operators into an augmentation usable by the
    automatic augmentations (AutoAugment, RandAugment, TrivialAugment).

    The `function` takes at least two positional arguments, the batch and a parameter.  The
    decorated augmentation takes a magnitude bin and the number of bins instead of the
    parameter and computes it as if by
    `mag_to_param(magnitudes[magnitude_bin] * ((-1) ** random_sign))`, with
    `magnitudes = linspace(mag_range[0], mag_range[1], num_magnitude_bins)`.

    Parameters
    ----------
    function : callable
        `function(data, parameter, **extra)` returning the transformed batch.
    mag_range : (number, number) or np.ndarray, optional
        The range of magnitudes, split into `num_magnitude_bins` evenly spaced values, or the
        magnitudes themselves.  Without it, the parameter passed to `function` is None.
    randomly_negate : bool, optional
        Whether the magnitude is negated at random for every sample.
    mag_to_param : callable, optional
        Magnitude -> parameter, evaluated in Python once per bin when the graph is built (it
        must return NumPy arrays or data convertible to them, of one shape and type).
    param_device : str, optional
        "cpu" (default), "gpu" or "auto" (the device of the samples): where the parameters
        are stored.
    name : str, optional
        The augmentation's name; the function's name by default.
    augmentation_cls : type, optional
        The `Augmentation` subclass to create.

    Returns
    -------
    Augmentation
        Or, when used as `@augmentation(...)` without `function`, the decorator.
    """
    def decorator(fun):
        cls = augmentation_cls or _augmentation.Augmentation
        return cls(fun, mag_range=mag_range, randomly_negate=randomly_negate,
                   mag_to_param=mag_to_param, param_device=param_device, name=name)

    return decorator if function is None else decorator(function)
