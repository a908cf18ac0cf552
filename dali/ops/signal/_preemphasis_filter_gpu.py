"""Host side of fn.preemphasis_filter's CUDA kernels (`preemphasis_filter.cu`): the per-sample
descriptors and the launches, from the batch's shapes and byte offsets, the per-sample
coefficients and the border mode.  Pure numpy.

The filter is computed in float32 (float64 for float64 input), as the CPU kernel computes it;
when the output type is another, into a scratch buffer ("acc") that cast.cu's kernel then
converts (DALI's rounding and saturation).  `program` returns a `dali.ops._gpu_program.Program`.
"""

from __future__ import annotations

import os

import numpy as np

from dali.ops._gpu_program import Launch, Program
from dali.ops.tensor import _cast_gpu

FIELDS = 3                      # int64 fields of a PreemphSample
BLOCK = 256
MAX_BLOCKS_X = 1024
MAX_SAMPLES = 65535             # gridDim.y
BORDERS = {"zero": 0, "clamp": 1, "reflect": 2}
PREEMPH_CU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "preemphasis_filter.cu")
CAST_CU = os.path.join(os.path.dirname(os.path.abspath(_cast_gpu.__file__)), "cast.cu")
_CODES = {np.dtype(t): c for t, c in (
    (np.int8, "i8"), (np.uint8, "u8"), (np.int16, "i16"), (np.uint16, "u16"),
    (np.int32, "i32"), (np.uint32, "u32"), (np.int64, "i64"), (np.uint64, "u64"),
    (np.float32, "f32"), (np.float64, "f64"))}


def program(shapes, coeffs, border, in_dtype, out_dtype, src_offsets=None, dst_offsets=None):
    """The `Program` filtering samples of `shapes` with per-sample `coeffs` (float32) and the
    `border` mode ("zero", "clamp", "reflect") from `in_dtype` to `out_dtype`; offsets are the
    samples' byte offsets (None: packed; the output must be packed when converted)."""
    in_dtype, out_dtype = np.dtype(in_dtype), np.dtype(out_dtype)
    if in_dtype not in _CODES or out_dtype not in _CODES:
        raise ValueError(f"preemphasis_filter.cu has no kernel from {in_dtype} to {out_dtype}")
    if border not in BORDERS:
        raise ValueError(f"unknown border {border!r}")
    shapes = np.asarray(shapes, np.int64)
    n = len(shapes)
    volumes = np.prod(shapes.reshape(n, -1), axis=1, dtype=np.int64)
    coeffs = np.ascontiguousarray(np.broadcast_to(np.asarray(coeffs, np.float32), (n,)))
    if n > MAX_SAMPLES:
        raise ValueError(f"a preemphasis launch takes at most {MAX_SAMPLES} samples, not {n}")
    acc = np.dtype(np.float64 if in_dtype == np.float64 else np.float32)
    direct = out_dtype == acc
    packed = np.cumsum(volumes) - volumes
    offsets = []
    for given, dtype in ((src_offsets, in_dtype), (dst_offsets, out_dtype)):
        given = packed * dtype.itemsize if given is None else np.asarray(given, np.int64)
        if given.shape != (n,) or (given % dtype.itemsize).any():
            raise ValueError("sample offsets must be one per sample, multiples of the element "
                             "size")
        offsets.append(given // dtype.itemsize)
    if not direct and not np.array_equal(offsets[1], packed):
        raise ValueError("a converted output must be packed")
    total = int(volumes.sum())
    if total == 0:
        return Program([], {})
    samples = np.stack([offsets[0], offsets[1] if direct else packed, volumes], axis=1)
    blocks = int(min(max(-(-int(volumes.max()) // BLOCK), 1), MAX_BLOCKS_X))
    launches = [Launch(PREEMPH_CU, f"preemph_{_CODES[in_dtype]}_{_CODES[acc]}", (blocks, n, 1),
                       (BLOCK, 1, 1), ("src", "dst" if direct else "acc",
                                       np.ascontiguousarray(samples), coeffs,
                                       np.int32(BORDERS[border])))]
    if direct:
        return Program(launches, {})
    cast = _cast_gpu.launch(total, acc, out_dtype)
    launches.append(Launch(CAST_CU, cast.kernel, cast.grid, cast.block, ("acc", "dst",
                                                                          cast.count)))
    return Program(launches, {"acc": total * acc.itemsize})
