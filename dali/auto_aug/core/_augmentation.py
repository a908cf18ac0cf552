"""`Augmentation`: a transformation with a magnitude range, called with magnitude bins.

An augmentation is a function `op(data, parameter, **extra)` built from dali operators plus a
description of its parameter: `mag_range` (a `(lo, hi)` pair split into `num_magnitude_bins`
evenly spaced magnitudes, or an explicit array of them), `randomly_negate` (each sample's
magnitude gets a random sign) and `mag_to_param` (magnitude -> parameter, evaluated in Python
for every bin when the graph is built).  The parameters of all bins become one constant table
and each sample picks its row with its bin: `table[bin]`, or, for signed magnitudes, a table
of interleaved `+m, -m` rows indexed by `2 * bin + sign` (what `signed_bin` precomputes once
for the whole batch, before any conditional split).
"""

from __future__ import annotations

import inspect
import numbers
import warnings

import numpy as np

from dali import fn, types
from dali._graph import data_node

_DEVICES = ("cpu", "gpu", "auto")


class _Unset:
    """Marks the arguments not given to `Augmentation.augmentation`."""


class _SignedMagnitudeBin:
    """A magnitude bin with its random sign; see `signed_bin`."""

    __slots__ = ("_bin", "_random_sign", "_signed_idx")

    def __init__(self, magnitude_bin, random_sign, signed_idx):
        self._bin = magnitude_bin
        self._random_sign = random_sign
        self._signed_idx = signed_idx

    @property
    def bin(self):
        """The unsigned magnitude bin (int or DataNode)."""
        return self._bin

    @property
    def random_sign(self):
        """The batch of {0, 1} signs (1: the magnitude is negated)."""
        return self._random_sign

    @property
    def signed_magnitude_idx(self):
        """`2 * bin + random_sign`: the row of the interleaved `+m, -m` parameter table."""
        return self._signed_idx

    def __getitem__(self, idx):
        """The `idx`-th of the bins and signs drawn with `signed_bin(..., shape=...)`."""
        b = self._bin[idx] if isinstance(self._bin, data_node.DataNode) else self._bin
        return _SignedMagnitudeBin(b, self._random_sign[idx], self._signed_idx[idx])


def signed_bin(magnitude_bin, random_sign=None, seed=None, shape=None):
    """Combines the `magnitude_bin` with the sign of the magnitude.

    Augmentations declared with `randomly_negate=True` can draw the random sign themselves, but
    inside a conditional split that would draw it once per branch: combine the bins and signs
    once, before the split, and pass the result as `magnitude_bin`.

    Parameters
    ----------
    magnitude_bin : int or DataNode
        The magnitude bin from `[0, num_magnitude_bins - 1]`, a plain int or a batch of ints.
    random_sign : DataNode, optional
        A batch of {0, 1} integers: 1 negates the magnitude of augmentations declared with
        `randomly_negate=True`.  Drawn with `fn.random.uniform(values=[0, 1])` when omitted.
    seed : int, optional
        Seed of the random sign (when `random_sign` is not given).
    shape : tuple, optional
        Shape of the random sign drawn per sample (when `random_sign` is not given).
    """
    if random_sign is None:
        kwargs = {} if seed is None else {"seed": seed}
        if shape is not None:
            kwargs["shape"] = shape
        random_sign = fn.random.uniform(values=[0, 1], dtype=types.INT32, **kwargs)
    return _SignedMagnitudeBin(magnitude_bin, random_sign, magnitude_bin * 2 + random_sign)


def _as_table(params):
    """The parameters as one array (float64 narrowed to float32, int64 to int32, as DALI's
    constants do)."""
    arr = np.stack([np.asarray(p) for p in params])
    narrow = {np.dtype(np.float64): np.float32, np.dtype(np.int64): np.int32}
    return arr.astype(narrow.get(arr.dtype, arr.dtype))


def _signature_parts(op):
    """(positional parameters, whether it takes *args, names of the keyword-capable
    parameters after the first two: the extra arguments a call passes on)."""
    params = list(inspect.signature(op).parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    has_varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    return positional, has_varargs, [p.name for p in params[2:]
                                     if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


class Augmentation:
    """A transformation built from dali operators, meant for the automatic augmentations
    (AutoAugment, RandAugment, TrivialAugment).  Create it with the `@augmentation`
    decorator rather than directly; see there for the arguments."""

    def __init__(self, op, mag_range=None, randomly_negate=None, mag_to_param=None,
                 param_device=None, name=None):
        self._op = op
        self._mag_range = mag_range
        self._randomly_negate = randomly_negate
        self._mag_to_param = mag_to_param
        self._param_device = param_device
        self._name = name
        self._validate()
        self._extra = _signature_parts(op)[2]

    def _validate(self):
        positional, has_varargs, _ = _signature_parts(self._op)
        if len(positional) < 2 and not has_varargs:
            raise TypeError(
                f"The {self._op} accepts {len(positional)} positional argument(s), but the "
                "functions decorated with `@augmentation` must accept at least two positional "
                f"arguments: the samples and parameters.\nError in: {self!r}.")
        mr = self._mag_range
        if mr is not None and not isinstance(mr, np.ndarray) and (
                not isinstance(mr, (tuple, list)) or len(mr) != 2):
            raise ValueError(f"The `mag_range` must be a pair of numbers `(lo, hi)` or a "
                             f"np.ndarray of magnitudes, got {mr!r}.\nError in: {self!r}.")
        if self._param_device is not None and self._param_device not in _DEVICES:
            raise ValueError(f"The `param_device` must be one of \"cpu\", \"gpu\", \"auto\", "
                             f"got {self._param_device!r}.\nError in: {self!r}.")

    # -- properties ---------------------------------------------------------------------------
    @property
    def op(self):
        return self._op

    @property
    def mag_range(self):
        return self._mag_range

    @property
    def mag_to_param(self):
        return self._mag_to_param

    @property
    def randomly_negate(self):
        return bool(self._randomly_negate)

    @property
    def param_device(self):
        return self._param_device or "cpu"

    @property
    def name(self):
        return self._name if self._name is not None else self._op.__name__

    def __repr__(self):
        parts = [repr(self._op)]
        for key in ("mag_range", "mag_to_param", "randomly_negate", "param_device", "name"):
            value = getattr(self, "_" + key)
            if value is not None:
                parts.append(f"{key}={value!r}")
        return f"Augmentation({', '.join(parts)})"

    def augmentation(self, mag_range=_Unset, randomly_negate=_Unset, mag_to_param=_Unset,
                     param_device=_Unset, name=_Unset, augmentation_cls=None):
        """A new augmentation with the same operation and the given parameters updated (the
        ones not given are kept)."""
        new = {"mag_range": mag_range, "randomly_negate": randomly_negate,
               "mag_to_param": mag_to_param, "param_device": param_device, "name": name}
        kwargs = {k: getattr(self, "_" + k) if v is _Unset else v for k, v in new.items()}
        return (augmentation_cls or type(self))(self._op, **kwargs)

    # -- application --------------------------------------------------------------------------
    def __call__(self, data, *, magnitude_bin=None, num_magnitude_bins=None, **kwargs):
        """Applies the transformation as if by `self.op(data, param, **kwargs)`, where
        `param = mag_to_param(magnitudes[magnitude_bin] * (-1) ** random_sign)` and
        `magnitudes = linspace(mag_range[0], mag_range[1], num_magnitude_bins)` (or the
        `mag_range` array itself).

        Parameters
        ----------
        data : DataNode
            A batch of samples to transform.
        magnitude_bin : int, DataNode or the result of `signed_bin`
            The magnitude bin from `[0, num_magnitude_bins - 1]`.
        num_magnitude_bins : int
            The total number of magnitude bins.
        kwargs
            Extra arguments; those whose names the operation's signature has are passed on.
        """
        param = self._param(data, magnitude_bin, num_magnitude_bins)
        extra = {k: v for k, v in kwargs.items() if k in self._extra}
        return self._op(data, param, **extra)

    def _error(self, message, exc=ValueError):
        return exc(f"{message}\nError in augmentation: {self!r}.")

    def _magnitudes(self, num_magnitude_bins):
        if num_magnitude_bins is None:
            raise self._error(
                f"The `num_magnitude_bins` argument is missing in the call of the `{self.name}` "
                "augmentation. Please specify the `num_magnitude_bins` along with the samples "
                "and magnitude_bin.")
        if not isinstance(num_magnitude_bins, numbers.Integral) or num_magnitude_bins < 1:
            raise self._error("The `num_magnitude_bins` must be a positive integer, got "
                              f"{num_magnitude_bins}.")
        if isinstance(self._mag_range, np.ndarray):
            if len(self._mag_range) != num_magnitude_bins:
                raise self._error(
                    f"The augmentation `{self.name}` has nd.array of length "
                    f"{len(self._mag_range)} specified as the `mag_range`. However, the "
                    f"`num_magnitude_bins` passed to the call is {num_magnitude_bins}.")
            return self._mag_range
        lo, hi = self._mag_range
        return np.linspace(lo, hi, num_magnitude_bins)

    def _to_param(self, magnitude):
        return magnitude if self._mag_to_param is None else self._mag_to_param(magnitude)

    def _constant(self, table, data):
        device = self.param_device
        if device == "auto":
            device = data.device if isinstance(data, data_node.DataNode) else "cpu"
        return types.Constant(table, device=device)

    def _param(self, data, magnitude_bin, num_magnitude_bins):
        if self._mag_range is None:
            return None
        magnitudes = self._magnitudes(num_magnitude_bins)
        if magnitude_bin is None:
            raise self._error(
                f"The `magnitude_bin` argument is missing in the call of the `{self.name}` "
                "augmentation. Please specify the `magnitude_bin` along with the samples and "
                "num_magnitude_bins.")
        signed = magnitude_bin if isinstance(magnitude_bin, _SignedMagnitudeBin) else None
        bin_ = signed.bin if signed is not None else magnitude_bin
        if not isinstance(bin_, data_node.DataNode) and (
                not isinstance(bin_, numbers.Integral) or isinstance(bin_, bool)
                or not -num_magnitude_bins <= bin_ < num_magnitude_bins):  # indexes as NumPy
            raise self._error(f"The magnitude bin must be an integer from "
                              f"`[0, {num_magnitude_bins - 1}]` range. Got `{bin_!r}`.",
                              IndexError)
        if self.randomly_negate and signed is None:
            warnings.warn(
                f"The augmentation `{self.name}` was declared with `random_negate=True`, but "
                "unsigned `magnitude_bin` was passed to the augmentation call. The augmentation "
                "will randomly negate the magnitudes manually. However, for better performance, "
                "if you conditionally split batch between multiple augmentations, it is better "
                "to call `signed_magnitude_bin = signed_bin(magnitude_bin)` before the split "
                "and pass the signed bins instead.", Warning, stacklevel=3)
            signed = signed_bin(magnitude_bin)
        if isinstance(bin_, data_node.DataNode):
            if not self.randomly_negate:
                return self._constant(_as_table([self._to_param(m) for m in magnitudes]),
                                      data)[bin_]
            table = _as_table([self._to_param(s * m) for m in magnitudes for s in (1, -1)])
            return self._constant(table, data)[signed.signed_magnitude_idx]
        m = magnitudes[bin_]
        if not self.randomly_negate:
            return self._constant(_as_table([self._to_param(m)])[0], data)
        table = _as_table([self._to_param(m), self._to_param(-m)])
        return self._constant(table, data)[signed.random_sign]
