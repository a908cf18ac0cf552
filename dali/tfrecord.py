"""Feature descriptions for `fn.readers.tfrecord`, as real DALI's `nvidia.dali.tfrecord`.

`FixedLenFeature(shape, dtype, default_value)` reads a feature of a fixed number of values
(the product of `shape`; `[]` or `()` is one value, returned as a scalar) and returns it in
`shape`; a record without the feature gives `default_value` in that shape.  A string feature
(`string`) returns the bytes of its first value as a 1-D uint8 array.

`VarLenFeature(dtype, default_value)` returns all the values of the feature as a 1-D array;
`VarLenFeature(partial_shape, dtype, default_value)` reshapes them to
`(n, *partial_shape)`, `n` inferred from the number of values.  A record without the feature
gives an empty array.

The types are `int64` (returned as int64), `float32` (float32) and `string` (bytes), with
DALI's numbers for them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

int64 = 0
string = 1
float32 = 2

_NAMES = {int64: "int64", string: "string", float32: "float32"}


@dataclass(frozen=True)
class Feature:
    """One feature to extract: see the module docstring."""

    var_len: bool
    shape: tuple
    dtype: int
    default_value: object
    partial_shape: tuple | None = None

    def __post_init__(self):
        if self.dtype not in _NAMES:
            raise ValueError(f"unknown feature type {self.dtype!r}: use dali.tfrecord.int64, "
                             "float32 or string")
        for extent in (*self.shape, *(self.partial_shape or ())):
            if type(extent) is not int or extent < 0:
                raise ValueError(f"feature shapes take non-negative ints, got {extent!r}")

    @property
    def size(self):
        """Values a fixed-length feature holds."""
        return math.prod(self.shape)

    def __repr__(self):
        kind = "VarLenFeature" if self.var_len else "FixedLenFeature"
        shape = self.partial_shape if self.var_len else self.shape
        return f"{kind}({list(shape) if shape is not None else None}, {_NAMES[self.dtype]}, " \
               f"{self.default_value!r})"


def FixedLenFeature(shape, dtype, default_value):  # noqa: N802 (DALI's name)
    """A feature of a fixed number of values, returned in `shape`."""
    return Feature(False, tuple(int(x) for x in shape), dtype, default_value)


def VarLenFeature(*args):  # noqa: N802 (DALI's name)
    """`VarLenFeature(dtype, default_value)` or `VarLenFeature(partial_shape, dtype,
    default_value)`: all the values of a feature, 1-D or as `(n, *partial_shape)`."""
    if len(args) == 2:
        dtype, default = args
        return Feature(True, (), dtype, default)
    if len(args) == 3:
        partial, dtype, default = args
        return Feature(True, (), dtype, default, tuple(int(x) for x in partial))
    raise TypeError("VarLenFeature takes (dtype, default_value) or (partial_shape, dtype, "
                    f"default_value), got {len(args)} arguments")
