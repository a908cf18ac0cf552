"""Slicing and pasting operators: fn.slice cuts the central half of each side (relative
coordinates, inside the image)."""

from bench.opcase import unary

CASE_LIST = [
    unary("slice", rel_start=[0.25, 0.25], rel_shape=[0.5, 0.5]),
]
