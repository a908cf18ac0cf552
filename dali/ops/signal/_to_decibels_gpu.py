"""Host side of fn.to_decibels' CUDA kernels (`to_decibels.cu`): the per-sample descriptors and
the launches from the batch's shapes and byte offsets and the operator's arguments.  Pure numpy.

With a reference the inverse 1 / reference is computed here (float32, as the CPU kernel does);
without one, db_lanes and db_reference find each sample's maximum on the device first (scratch
buffers "keys", zeroed, and "inv").  `program` returns a `dali.ops._gpu_program.Program`.
"""

from __future__ import annotations

import os

import numpy as np

from dali.ops._gpu_program import Launch, Program

FIELDS = 3                      # int64 fields of a DbSample
BLOCK = 256
MAX_BLOCKS_X = 1024
MAX_SAMPLES = 65535             # gridDim.y
CU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "to_decibels.cu")
_FLT_MIN = np.finfo(np.float32).tiny


def min_ratio(multiplier, cutoff_db):
    """10^(cutoff_db / multiplier) as the CPU kernel computes it: the quotient in float32,
    the power in double, rounded to float32 (infinity beyond its range)."""
    with np.errstate(over="ignore"):
        return np.float32(10.0 ** float(np.float32(cutoff_db) / np.float32(multiplier)))


def program(shapes, multiplier, reference, cutoff_db, src_offsets=None, dst_offsets=None):
    """The `Program` converting float32 samples of `shapes` (byte offsets: None packed)."""
    shapes = np.asarray(shapes, np.int64)
    n = len(shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a to_decibels launch takes at most {MAX_SAMPLES} samples, not {n}")
    if np.float32(multiplier) == 0:
        raise ValueError("the multiplier must not be 0")
    volumes = np.prod(shapes.reshape(n, -1), axis=1, dtype=np.int64)
    packed = (np.cumsum(volumes) - volumes) * 4
    samples = np.empty((n, FIELDS), np.int64)
    for col, given in ((0, src_offsets), (1, dst_offsets)):
        given = packed if given is None else np.asarray(given, np.int64)
        if given.shape != (n,) or (given % 4).any():
            raise ValueError("sample offsets must be one per sample, multiples of 4 bytes")
        samples[:, col] = given // 4
    samples[:, 2] = volumes
    if not volumes.any():
        return Program([], {})
    lo = min_ratio(multiplier, cutoff_db)
    blocks = int(min(max(-(-int(volumes.max()) // BLOCK), 1), MAX_BLOCKS_X))
    grid, block = (blocks, n, 1), (BLOCK, 1, 1)
    launches, temps = [], {}
    if np.float32(reference) == 0:
        temps = {"keys": np.zeros(8 * n, np.uint64), "inv": np.zeros(n, np.float32)}
        launches.append(Launch(CU, "db_lanes", grid, block, ("src", "keys", samples)))
        launches.append(Launch(CU, "db_reference", (-(-n // BLOCK), 1, 1), block,
                               ("src", "keys", "inv", samples, np.int64(n))))
        inv = "inv"
    else:
        inv = np.full(n, np.float32(1) / np.float32(reference), np.float32)
    launches.append(Launch(CU, "db_convert", grid, block,
                           ("src", "dst", samples, inv, np.float32(multiplier), lo,
                            np.int32(lo >= _FLT_MIN))))
    return Program(launches, temps)
