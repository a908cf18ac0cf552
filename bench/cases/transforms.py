"""Affine transforms (fn.transforms.*) and their application to points (coord_transform).

The "affine" input is one 2x3 float32 matrix per sample (the same for both input sets: these
operators never see pixels), so the rows measure the per-batch cost of building and composing
64 small matrices.  coord_transform maps the "points" input with a constant 2x3 matrix;
experimental.warp_perspective warps the images with a constant homography;
resize_crop_mirror (and its deprecated alias) resizes to half size, crops the central quarter
of the original size and mirrors; tensor_resize (and its experimental alias) halves the images'
first two axes.
"""

import numpy as np

from bench import opcase
from bench.opcase import SIDE, OpCase, half, unary


@opcase.input_kind("affine")
def _affine(size, batch_size):
    rng = np.random.default_rng(3)
    return [np.hstack([np.eye(2), rng.normal(size=(2, 1))]).astype(np.float32)
            + rng.normal(scale=0.1, size=(2, 3)).astype(np.float32)
            for _ in range(batch_size)], None


CASE_LIST = [
    unary("transforms.translation", kind="affine", op="transforms.translation",
          offset=[3.0, -2.0]),
    unary("transforms.scale", kind="affine", op="transforms.scale", scale=[1.5, 0.5],
          center=[112.0, 112.0]),
    unary("transforms.rotation", kind="affine", op="transforms.rotation", angle=30.0,
          center=[112.0, 112.0]),
    unary("transforms.shear", kind="affine", op="transforms.shear", angles=[10.0, -5.0]),
    unary("transforms.crop", kind="affine", op="transforms.crop", from_start=[10.0, 20.0],
          from_end=[200.0, 210.0], to_start=[0.0, 0.0], to_end=[1.0, 1.0]),
    unary("coord_transform", kind="points", MT=[0.9, 0.1, 0.05, -0.1, 1.1, 0.02]),
    unary("experimental.warp_perspective", op="experimental.warp_perspective",
          matrix=[0.9, 0.05, 4.0, -0.05, 0.95, 6.0, 0.0002, -0.0001, 1.0]),
    *(OpCase(name, name, lambda fn, types, x, size, name=name: getattr(fn, name)(
        x, size=(half(size),) * 2, crop=(SIDE[size] // 4,) * 2, mirror=1))
      for name in ("resize_crop_mirror", "fast_resize_crop_mirror")),
    *(OpCase(name, name, lambda fn, types, x, size, name=name: opcase.op_fn(fn, name)(
        x, sizes=(half(size),) * 2, axes=[0, 1]))
      for name in ("tensor_resize", "experimental.tensor_resize")),
    OpCase("transforms.combine", "transforms.combine",
           lambda fn, types, m, size: fn.transforms.combine(m, m, m), ("affine",)),
]
