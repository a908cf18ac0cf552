"""Host side of fn.spectrogram's CUDA kernel (`spectrogram.cu`): the per-sample descriptors, the
twiddle table and the launch, from the batch's shapes and byte offsets and the operator's
arguments.  Pure numpy.

The kernel computes each bin's DFT directly in double, the CPU operator a float FFT, so the
two differ by the FFT's rounding: at most 1e-5 * B (power 1) or 2e-5 * B**2 (power 2), B the
sample's largest |x| times the sum of |w| (a bound of every bin's magnitude);
tests/gpu/cases_audio.py checks that bound.  `program` returns a `dali.ops._gpu_program.Program`.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from dali.ops._gpu_program import Launch, Program

FIELDS = 4                      # int64 fields of a SpecSample
BLOCK = 256
MAX_BLOCKS_X = 1024
MAX_SAMPLES = 65535             # gridDim.y
CU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spectrogram.cu")


@functools.lru_cache(maxsize=16)
def twiddles(nfft):
    """(cos, sin) of 2 pi r / nfft for r < nfft, interleaved (float64, read-only)."""
    angle = 2 * np.pi * np.arange(nfft) / nfft
    table = np.stack([np.cos(angle), np.sin(angle)], axis=1).reshape(-1)
    table.flags.writeable = False
    return table


def program(shapes, out_shapes, nfft, window, step, center, reflect, power, time_major,
            src_offsets=None, dst_offsets=None):
    """The `Program` of the spectrograms of float32 signals of `shapes` (each one axis of
    extent > 1 at most) into float32 samples of `out_shapes` (the plan's: (bins, windows), or
    (windows, bins) `time_major`) with the FFT size `nfft`, the window function `window` (its
    length the window length), `step`, centred windows (mirrored at the ends with `reflect`),
    |X|**power; offsets are the samples' byte offsets (None: packed)."""
    shapes = np.asarray(shapes, np.int64)
    n = len(shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a spectrogram launch takes at most {MAX_SAMPLES} samples, not {n}")
    window = np.ascontiguousarray(window, np.float32).reshape(-1)
    wl = len(window)
    if not 1 <= wl <= nfft or step < 1 or power not in (1, 2):
        raise ValueError("bad window, step or power")
    if n == 0:
        return Program([], {})
    out_shapes = np.asarray(out_shapes, np.int64).reshape(n, 2)
    lengths = np.prod(shapes.reshape(n, -1), axis=1, dtype=np.int64)
    bins = nfft // 2 + 1
    windows = out_shapes[:, 0 if time_major else 1]
    if (out_shapes[:, 1 if time_major else 0] != bins).any():
        raise ValueError(f"the output samples must have {bins} bins")
    if ((lengths < 1) | (windows < 1)).any():
        raise ValueError("every signal needs at least one sample and one window")
    volumes = windows * bins
    samples = np.empty((n, FIELDS), np.int64)
    for col, given, packed in ((0, src_offsets, lengths), (1, dst_offsets, volumes)):
        given = (np.cumsum(packed) - packed) * 4 if given is None else np.asarray(given,
                                                                                 np.int64)
        if given.shape != (n,) or (given % 4).any():
            raise ValueError("sample offsets must be one per sample, multiples of 4 bytes")
        samples[:, col] = given // 4
    samples[:, 2] = lengths
    samples[:, 3] = windows
    blocks = int(min(-(-int(volumes.max()) // BLOCK), MAX_BLOCKS_X))
    offset = -(wl // 2) if center else 0
    return Program([Launch(CU, "spectrogram", (blocks, n, 1), (BLOCK, 1, 1),
                           ("src", "dst", samples, window, twiddles(nfft), np.int64(nfft),
                            np.int64(wl), np.int64(step), np.int64(offset),
                            np.int32(bool(center and reflect)), np.int32(power),
                            np.int32(bool(time_major))))], {})
