"""Automatic augmentations: AutoAugment (`dali.auto_aug.auto_augment`), RandAugment
(`rand_augment`) and TrivialAugment (`trivial_augment`), built from the augmentations of
`dali.auto_aug.augmentations` with the tools of `dali.auto_aug.core`.  They choose per sample
with conditionals, so the pipeline needs `enable_conditionals=True`."""
