"""Geometry and image operators."""

from bench import pipelines
from bench.opcase import SIDE, OpCase, half, unary

CASE_LIST = [
    OpCase("crop", "crop", lambda fn, types, x, size: fn.crop(x, crop=(half(size),) * 2)),
    OpCase("crop_mirror_normalize", "crop_mirror_normalize",
           lambda fn, types, x, size: fn.crop_mirror_normalize(
               x, dtype=types.FLOAT, output_layout="CHW", mirror=1,
               mean=pipelines.IMAGENET_MEAN, std=pipelines.IMAGENET_STD)),
    unary("flip", horizontal=1),
    OpCase("resize", "resize",
           lambda fn, types, x, size: fn.resize(x, resize_x=half(size), resize_y=half(size))),
    OpCase("random_resized_crop", "random_resized_crop",
           lambda fn, types, x, size: fn.random_resized_crop(x, size=(SIDE[size],) * 2)),
    OpCase("rotate", "rotate",
           lambda fn, types, x, size: fn.rotate(x, angle=15.0, size=(SIDE[size],) * 2)),
    unary("warp_affine", matrix=[1.0, 0.1, 0.0, 0.1, 1.0, 0.0]),
    unary("sphere"),
    unary("water"),
    unary("jitter"),
    unary("coord_flip", kind="points"),
]
