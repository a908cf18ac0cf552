"""Affine transforms: matrices of translation, scaling, rotation, shear and crop, and their
composition (`fn.transforms.*`)."""
