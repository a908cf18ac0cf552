"""Fill values converted to a sample type as DALI's C++ `static_cast` from float does on
x86-64 (fn.pad, fn.erase): floats round to the type, integers take the value truncated
through int32 (int64 for 64-bit types and uint32), which is that type's minimum when out of
its range or NaN, then wrap to the narrower type."""

from __future__ import annotations

import numpy as np


def c_cast(values, dtype):
    """float32 `values` as `dtype`."""
    values = np.asarray(values, np.float32)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return values != 0
    if dtype.kind == "f":
        with np.errstate(over="ignore"):
            return values.astype(dtype)
    wide = np.float64(values)
    bits = 64 if dtype.itemsize == 8 or dtype == np.uint32 else 32
    lo = -2.0 ** (bits - 1)
    with np.errstate(invalid="ignore"):
        ok = (wide >= lo) & (wide < -lo)
        as_int = np.where(ok, np.trunc(np.where(ok, wide, 0)), lo).astype(np.int64)
    return as_int.astype(dtype)
