"""Tensor operators that join, build and rearrange tensors: cat, stack, one_hot, the
constant fills, shapes, element_extract, sequence_rearrange and the batch permutations."""

import numpy as np

from bench.opcase import N_CLASSES, SIDE, OpCase, unary

CASE_LIST = [
    OpCase("cat", "cat", lambda fn, types, x, y, size: fn.cat(x, y, axis=1), ("u8", "u8b")),
    OpCase("stack", "stack", lambda fn, types, x, y, size: fn.stack(x, y, axis=3),
           ("u8", "u8b")),
    unary("one_hot", kind="labels", num_classes=N_CLASSES),
    OpCase("zeros", "zeros", lambda fn, types, size: fn.zeros(
        shape=[SIDE[size], SIDE[size], 3], dtype=types.UINT8), (), "idle"),
    OpCase("ones", "ones", lambda fn, types, size: fn.ones(
        shape=[SIDE[size], SIDE[size], 3], dtype=types.UINT8), (), "idle"),
    OpCase("full", "full", lambda fn, types, size: fn.full(
        np.uint8(7), shape=[SIDE[size], SIDE[size], 3]), (), "idle"),
    unary("zeros_like"),
    unary("ones_like"),
    OpCase("full_like", "full_like", lambda fn, types, x, size: fn.full_like(x, 7)),
]
