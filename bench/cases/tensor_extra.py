"""Tensor operators that join, build and rearrange tensors: cat, stack, one_hot, the
constant fills, shapes, element_extract, sequence_rearrange and the batch permutations."""

from bench.opcase import N_CLASSES, OpCase, unary

CASE_LIST = [
    OpCase("cat", "cat", lambda fn, types, x, y, size: fn.cat(x, y, axis=1), ("u8", "u8b")),
    OpCase("stack", "stack", lambda fn, types, x, y, size: fn.stack(x, y, axis=3),
           ("u8", "u8b")),
    unary("one_hot", kind="labels", num_classes=N_CLASSES),
]
