"""`Policy`: the sub-policies of AutoAugment."""

from __future__ import annotations

import numbers

from dali.auto_aug.core import _augmentation


class Policy:
    """An augmentation policy as introduced in AutoAugment (https://arxiv.org/abs/1805.09501).

    Parameters
    ----------
    name : str
        The policy's name, for presentation.
    num_magnitude_bins : int
        The number of bins the augmentations' magnitude ranges are divided into.
    sub_policies : sequence of sequences of (Augmentation, float, int or None)
        For each sample one sub-policy is chosen uniformly at random; its steps then run in
        order, each applying its augmentation with the given probability and magnitude bin
        (None for augmentations without a magnitude range).
    """

    def __init__(self, name, num_magnitude_bins, sub_policies):
        if not isinstance(num_magnitude_bins, numbers.Integral) or num_magnitude_bins < 1:
            raise ValueError(f"The `num_magnitude_bins` must be a positive integer, got "
                             f"{num_magnitude_bins}.")
        self.name = name
        self.num_magnitude_bins = num_magnitude_bins
        self.sub_policies = _rename_clashes(sub_policies)
        for sub_policy in self.sub_policies:
            for aug, p, mag in sub_policy:
                self._check_step(aug, p, mag)
        self._augmentations = {}
        for sub_policy in self.sub_policies:
            for aug, _, _ in sub_policy:
                self._augmentations.setdefault(aug.name, aug)

    def _check_step(self, aug, p, mag):
        if not isinstance(aug, _augmentation.Augmentation):
            raise TypeError(f"The sub-policy steps must be `(Augmentation, probability, "
                            f"magnitude_bin)` tuples, got {aug!r} in the policy `{self.name}`.")
        if not isinstance(p, numbers.Real) or not 0 <= p <= 1:
            raise ValueError("Probability of applying the augmentation must be a number from "
                             f"`[0, 1]` range. Got `{p}` for augmentation `{aug.name}`.")
        if mag is None:
            if aug.mag_range is not None:
                raise ValueError(
                    f"The augmentation `{aug.name}` has `mag_range` specified, so the magnitude "
                    f"bin is required. However, got `None` in the policy `{self.name}`.")
        elif (not isinstance(mag, numbers.Integral) or isinstance(mag, bool)
              or not 0 <= mag < self.num_magnitude_bins):
            raise ValueError("Magnitude of the augmentation must be an integer from "
                             f"`[0, {self.num_magnitude_bins - 1}]` range. Got `{mag}` for "
                             f"augmentation `{aug.name}`.")

    @property
    def augmentations(self):
        """The augmentations the policy uses, by name."""
        return dict(self._augmentations)

    def __repr__(self):
        subs = ",".join(
            "\n\t[" + ", ".join(repr((aug.name, p, mag)) for aug, p, mag in sub) + "]"
            for sub in self.sub_policies)
        augs = ",".join(f"\n\t'{name}': {aug!r}" for name, aug in self._augmentations.items())
        return (f"Policy(name={self.name!r}, num_magnitude_bins={self.num_magnitude_bins}, "
                f"sub_policies=[{subs}], augmentations={{{augs}}})")


def _rename_clashes(sub_policies):
    """The sub-policies with distinct augmentations of one name renamed `<k>__<name>` (as DALI
    does), so that `augmentations` maps every name to one augmentation."""
    by_name = {}
    for sub in sub_policies:
        for aug, _, _ in sub:
            if isinstance(aug, _augmentation.Augmentation):
                seen = by_name.setdefault(aug.name, [])
                if all(a is not aug for a in seen):
                    seen.append(aug)
    renamed = {}
    for name, augs in by_name.items():
        if len(augs) > 1:
            for k, aug in enumerate(augs):
                renamed[id(aug)] = aug.augmentation(name=f"{k}__{name}")
    return [[(renamed.get(id(aug), aug), p, mag) for aug, p, mag in sub]
            for sub in sub_policies]
