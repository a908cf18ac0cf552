"""Host side of fn.nonsilent_region's CUDA kernels (`nonsilent_region.cu`): the per-sample
descriptors and the launch (one thread per signal), from the batch's shapes and byte offsets
and the operator's arguments.  Pure numpy.

`launch` returns a `dali.ops._gpu_program.Launch` whose buffer arguments are named: "src" (the
signals), "begin" and "length" (the two int32 outputs); None for an empty batch.
"""

from __future__ import annotations

import os

import numpy as np

from dali.ops._gpu_program import Launch

FIELDS = 4                      # int64 fields of a SilenceSample
BLOCK = 128
CU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nonsilent_region.cu")
CODES = {np.dtype(t): c for t, c in (
    (np.int8, "i8"), (np.uint8, "u8"), (np.int16, "i16"), (np.uint16, "u16"),
    (np.int32, "i32"), (np.uint32, "u32"), (np.int64, "i64"), (np.uint64, "u64"),
    (np.float32, "f32"))}


def ratio(cutoff_db):
    """10^(cutoff_db / 10) as the CPU kernel computes it: in double, rounded to float32."""
    return np.float32(10.0 ** (float(cutoff_db) / 10.0))


def launch(shapes, dtype, window, reset, cutoff_db, reference, src_offsets=None,
           begin_offsets=None, length_offsets=None):
    """The `Launch` finding the non-silent regions of 1-D signals of `shapes` and `dtype`;
    offsets are byte offsets of the samples (None: packed)."""
    dtype = np.dtype(dtype)
    if dtype not in CODES:
        raise ValueError(f"nonsilent_region.cu has no kernel for {dtype}")
    if window < 1:
        raise ValueError("the window must be positive")
    shapes = np.asarray(shapes, np.int64)
    n = len(shapes)
    if n == 0:
        return None
    lengths = shapes.reshape(n, -1)
    if lengths.shape[1] != 1:
        raise ValueError("the signals must be 1-D")
    lengths = lengths[:, 0]
    samples = np.empty((n, FIELDS), np.int64)
    samples[:, 1] = lengths
    for col, given, size, counts in ((0, src_offsets, dtype.itemsize, lengths),
                                     (2, begin_offsets, 4, np.ones(n, np.int64)),
                                     (3, length_offsets, 4, np.ones(n, np.int64))):
        given = ((np.cumsum(counts) - counts) * size if given is None
                 else np.asarray(given, np.int64))
        if given.shape != (n,) or (given % size).any():
            raise ValueError("sample offsets must be one per sample, multiples of the element "
                             "size")
        samples[:, col] = given // size
    return Launch(CU, f"nonsilent_{CODES[dtype]}", (-(-n // BLOCK), 1, 1), (BLOCK, 1, 1),
                  ("src", "begin", "length", samples, np.int64(n), np.int64(window),
                   np.int64(reset), ratio(cutoff_db), np.float32(reference)))
