"""The building blocks of the automatic augmentations: the `@augmentation` decorator and the
`Augmentation` it creates, `signed_bin`, `select` and `Policy`."""

from dali.auto_aug.core._augmentation import Augmentation, signed_bin
from dali.auto_aug.core._select import select
from dali.auto_aug.core.decorator import augmentation
from dali.auto_aug.core.policy import Policy

_Augmentation = Augmentation

__all__ = ["Augmentation", "Policy", "augmentation", "select", "signed_bin"]
