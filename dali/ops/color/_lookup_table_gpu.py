"""Host side of fn.lookup_table's CUDA kernels (`lookup_table.cu`): the kernel of an input type
and output element size, and the launch over a batch stored back to back, with the table the
CPU path uses (`lut.full_table` for 8- and 16-bit inputs) as unsigned bit patterns.

A launch is `kernel(grid, block, (src, dst, numpy.int64(count), table, numpy.int64(lo),
numpy.int64(size), numpy.uint64(default)))`.
"""

from __future__ import annotations

import typing

import numpy as np

BLOCK = 256
MAX_BLOCKS = 4096               # grid-stride beyond this
_CODES = {np.dtype(t): c for t, c in (
    (np.int8, "i8"), (np.uint8, "u8"), (np.int16, "i16"), (np.uint16, "u16"),
    (np.int32, "i32"), (np.uint32, "u32"), (np.int64, "i64"), (np.uint64, "u64"))}


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    count: np.int64             # elements looked up
    table: np.ndarray           # unsigned integers of the output's size
    lo: np.int64                # the key of table[0]
    size: np.int64              # entries of the table
    default: np.uint64          # the bits of the default value


def launch(count, in_dtype, table, default):
    """The `Launch` mapping `count` elements of `in_dtype` through `table` (in the output type;
    for 8- and 16-bit inputs one entry per value of the type, from its minimum) with the
    one-element `default` of the same type."""
    in_dtype, table = np.dtype(in_dtype), np.ascontiguousarray(table)
    code, word = _CODES.get(in_dtype), table.dtype.itemsize
    if code is None or word not in (1, 2, 4, 8):
        raise ValueError(f"lookup_table.cu has no kernel from {in_dtype} to {table.dtype}")
    narrow = in_dtype.itemsize <= 2
    if narrow and table.size != 1 << (8 * in_dtype.itemsize):
        raise ValueError(f"a table for {in_dtype} inputs has {1 << (8 * in_dtype.itemsize)} "
                         "entries (lut.full_table)")
    unsigned = np.dtype(f"u{word}")
    bits = np.asarray(default, table.dtype).reshape(-1)[:1].view(unsigned)
    blocks = int(min(max(-(-int(count) // BLOCK), 1), MAX_BLOCKS))
    return Launch(f"lookup_table_{code}_{word}", (blocks, 1, 1), (BLOCK, 1, 1), np.int64(count),
                  table.view(unsigned), np.int64(np.iinfo(in_dtype).min if narrow else 0),
                  np.int64(table.size), np.uint64(bits[0]))
