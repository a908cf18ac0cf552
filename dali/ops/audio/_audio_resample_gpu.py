"""Host side of fn.audio_resample's CUDA kernels (`audio_resample.cu`): the per-sample
descriptors, the filter's tables and the launch, from the batch's shapes and byte offsets, the
plan's scales (input samples per output sample) and the filter (`_resampling.window`).  Pure
numpy.

The per-phase table is the CPU kernel's (`phase_table` of _ext/kernels/audio_resample.h): for
phase p in 0..31 and tap t, the window's entry 1 + p + 32 t and its difference to the next, in
rows of 2 * lobes values.  `program` returns a `dali.ops._gpu_program.Program`.
"""

from __future__ import annotations

import os

import numpy as np

from dali.ops._gpu_program import Launch, Program

FIELDS = 5                      # int64 fields of a ResampleSample
BLOCK = 256
MAX_BLOCKS_X = 1024
MAX_SAMPLES = 65535             # gridDim.y
PHASES = 32
CU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "audio_resample.cu")
CODES = {np.dtype(t): c for t, c in (
    (np.uint8, "u8"), (np.int8, "i8"), (np.uint16, "u16"), (np.int16, "i16"),
    (np.uint32, "u32"), (np.int32, "i32"), (np.float32, "f32"))}


def phase_table(lut, lobes):
    """The CPU kernel's per-phase table of the tabulated window `lut` (float32)."""
    taps = 2 * lobes
    at = 1 + np.arange(PHASES)[:, None] + PHASES * np.arange(taps)[None, :]
    if at.max() + 1 >= len(lut):
        raise ValueError(f"the window has {len(lut)} entries, too few for {lobes} lobes")
    entry = lut[at]
    return np.stack([entry, lut[at + 1] - entry], axis=1).reshape(-1)


def program(shapes, out_shapes, in_dtype, out_dtype, scales, window, lobes, src_offsets=None,
            dst_offsets=None):
    """The `Program` resampling 1-D (length) or 2-D (length, channels) samples of `shapes` and
    `in_dtype` into samples of `out_shapes` and `out_dtype` (the same channels) at `scales`
    input samples per output sample, with `window` = (lut, wscale, wcenter) of `lobes` zero
    crossings; offsets are the samples' byte offsets (None: packed)."""
    in_dtype, out_dtype = np.dtype(in_dtype), np.dtype(out_dtype)
    if in_dtype not in CODES or out_dtype not in CODES:
        raise ValueError(f"audio_resample.cu has no kernel from {in_dtype} to {out_dtype}")
    shapes, out_shapes = np.asarray(shapes, np.int64), np.asarray(out_shapes, np.int64)
    n = len(shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a resampling launch takes at most {MAX_SAMPLES} samples, not {n}")
    if n == 0:
        return Program([], {})
    shapes, out_shapes = shapes.reshape(n, -1), out_shapes.reshape(n, -1)
    if shapes.shape[1] not in (1, 2) or out_shapes.shape != shapes.shape:
        raise ValueError("the samples must be 1-D or 2-D, as many dimensions in and out")
    channels = shapes[:, 1] if shapes.shape[1] == 2 else np.ones(n, np.int64)
    if shapes.shape[1] == 2 and not np.array_equal(channels, out_shapes[:, 1]):
        raise ValueError("input and output samples must have the same channels")
    scales = np.ascontiguousarray(scales, np.float64).reshape(-1)
    if scales.shape != (n,) or not (scales > 0).all():
        raise ValueError(f"the scales must be {n} positive values")
    lut, wscale, wcenter = window
    lut = np.ascontiguousarray(lut, np.float32)
    samples = np.empty((n, FIELDS), np.int64)
    volumes = [shapes[:, 0] * channels, out_shapes[:, 0] * channels]
    for col, given, dtype, counts in ((0, src_offsets, in_dtype, volumes[0]),
                                      (2, dst_offsets, out_dtype, volumes[1])):
        given = ((np.cumsum(counts) - counts) * dtype.itemsize if given is None
                 else np.asarray(given, np.int64))
        if given.shape != (n,) or (given % dtype.itemsize).any():
            raise ValueError("sample offsets must be one per sample, multiples of the element "
                             "size")
        samples[:, col] = given // dtype.itemsize
    samples[:, 1] = shapes[:, 0]
    samples[:, 3] = out_shapes[:, 0]
    samples[:, 4] = channels
    if not volumes[1].any():
        return Program([], {})
    blocks = int(min(-(-int(volumes[1].max()) // BLOCK), MAX_BLOCKS_X))
    return Program([Launch(CU, f"resample_{CODES[in_dtype]}_{CODES[out_dtype]}",
                           (blocks, n, 1), (BLOCK, 1, 1),
                           ("src", "dst", samples, scales, lut, phase_table(lut, lobes),
                            np.float32(wscale), np.float32(wcenter), np.int32(lobes)))], {})
