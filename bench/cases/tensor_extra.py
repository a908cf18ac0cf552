"""Tensor operators that join, build and rearrange tensors: cat, stack, one_hot, the
constant fills, shapes, element_extract, sequence_rearrange and the batch permutations
(permute_batch by the indices of batch_permutation, which the case then includes)."""

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
    unary("shapes"),
    unary("element_extract", kind="frames", element_map=[0]),
    unary("sequence_rearrange", kind="frames", new_order=[0, 0]),
    OpCase("permute_batch", "permute_batch",
           lambda fn, types, x, size: fn.permute_batch(x, indices=fn.batch_permutation())),
    OpCase("batch_permutation", "batch_permutation",
           lambda fn, types, size: fn.batch_permutation(), (), "idle"),
]
