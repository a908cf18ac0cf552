"""Normalization and arithmetic expressions (DataNode operators: the "arithmetic.*" cases
measure whole expressions, `x * 0.5 + 1` on float and `x + y` on uint8)."""

from bench.opcase import OpCase, unary

CASE_LIST = [
    unary("normalize", kind="f32"),
    OpCase("arithmetic.mul_add_float", None, lambda fn, types, x, size: x * 0.5 + 1, ("f32",)),
    OpCase("arithmetic.add_uint8", None, lambda fn, types, x, y, size: x + y, ("u8", "u8b")),
]
