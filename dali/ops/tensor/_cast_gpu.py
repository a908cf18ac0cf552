"""Host side of fn.cast's CUDA kernels (`cast.cu`): the kernel of a pair of element types and
the launch configuration of a batch stored back to back (one flat range, as the CPU kernel
converts it).  Not wired to an executor yet (docs/gpu.md).

A launch is `kernel(grid, block, (src, dst, numpy.int64(count)))`.
"""

from __future__ import annotations

import typing

import numpy as np

BLOCK = 256
MAX_BLOCKS = 4096               # grid-stride beyond this
_CODES = {np.dtype(t): c for t, c in (
    (np.bool_, "bool"), (np.int8, "i8"), (np.uint8, "u8"), (np.int16, "i16"),
    (np.uint16, "u16"), (np.int32, "i32"), (np.uint32, "u32"), (np.int64, "i64"),
    (np.uint64, "u64"), (np.float16, "f16"), (np.float32, "f32"), (np.float64, "f64"))}


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    count: np.int64             # elements converted


def kernel_name(in_dtype, out_dtype):
    src, dst = _CODES.get(np.dtype(in_dtype)), _CODES.get(np.dtype(out_dtype))
    if src is None or dst is None:
        raise ValueError(f"cast.cu has no kernel from {np.dtype(in_dtype)} to "
                         f"{np.dtype(out_dtype)}")
    return f"cast_{src}_{dst}"


def launch(count, in_dtype, out_dtype):
    """The `Launch` converting `count` elements stored back to back."""
    blocks = int(min(max(-(-int(count) // BLOCK), 1), MAX_BLOCKS))
    return Launch(kernel_name(in_dtype, out_dtype), (blocks, 1, 1), (BLOCK, 1, 1),
                  np.int64(count))
