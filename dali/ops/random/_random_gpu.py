"""Host side of the random generators' CUDA kernels (`random.cu`): the per-sample descriptors
and launch configuration of `random_draw` (fn.random.uniform, normal, coin_flip, choice from
range(a): the draws of `_common.draw`, with the same mode and per-sample parameters) and of
`random_beta` (fn.random.beta).  `_common.draw` launches it for the operators DALI has on the
GPU (uniform, normal, coin_flip); choice and beta stay CPU operators, as in DALI, their kernels
ready for when they are not.

A launch is `kernel(grid, block, launch.arguments(out, table))` (`table`: the float64 values
of the "pick" mode, fn.random.uniform's `values`, or a null address; `random_beta`:
`(out, failed)`, `failed` one zeroed int32 per sample, set where the gamma sampling did not
converge).
"""

from __future__ import annotations

import typing

import numpy as np

from dali._ext.kernels import random as _kernel

BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
# RandomSample of random.cu: offset, count, sample id (int64), then a, b, end (double)
SAMPLE = np.dtype([("offset", np.int64), ("count", np.int64), ("sample_id", np.int64),
                   ("a", np.float64), ("b", np.float64), ("end", np.float64)])
# the output type codes of random.cu (those of random_draws.h)
DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.bool_, np.uint8, np.uint16,
                                     np.uint32, np.uint64, np.int8, np.int16, np.int32,
                                     np.int64))
# the CPU kernel's modes, and "pick": element of the sample's values (a: their offset in the
# table, b: their number)
MODES = {**_kernel.MODES, "pick": len(_kernel.MODES)}


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (n,) SAMPLE records
    scalars: tuple              # the kernel's arguments after the descriptor array

    def arguments(self, out, *rest):
        """The kernel's arguments in order, around the output batch `out` and `rest` (the
        table of `random_draw`, the `failed` flags of `random_beta`)."""
        return (out, self.samples.view(np.uint8), np.int32(len(self.samples)),
                *self.scalars, *rest)


def draw(mode, shapes, dtype, key, sample_ids, stream, a, b=None, end=None, offsets=None):
    """The `Launch` of `random_draw` filling samples of `shapes` and `dtype` with the `mode`
    draws (a key of `MODES`: "uniform", "rint", "normal", "coin", "index", "pick") of `key`,
    `sample_ids` and `stream`, with per-sample parameters `a`, `b`, `end` (None: zeros), as
    `_kernel.draw_batch` does; offsets: the samples' byte offsets (None: packed)."""
    dtype = np.dtype(dtype)
    if dtype not in DTYPES:
        raise ValueError(f"random.cu does not draw {dtype}")
    lo, hi = _kernel._CLAMP[dtype]
    samples = _samples(shapes, dtype.itemsize, sample_ids, offsets, a, b, end)
    scalars = (np.uint64(key), np.uint32(stream), np.int32(MODES[mode]),
               np.int32(DTYPES.index(dtype)), np.int32(dtype.itemsize), np.float64(lo),
               np.float64(hi))
    return Launch("random_draw", _grid(samples), (BLOCK, 1, 1), samples, scalars)


def beta(shapes, dtype, key, sample_ids, alpha, beta, offsets=None):
    """The `Launch` of `random_beta` (float32 or float64 samples of `shapes`) with per-sample
    `alpha` and `beta`, as `_kernel.beta_batch` does."""
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"random.cu draws beta as float32 or float64, not {dtype}")
    samples = _samples(shapes, dtype.itemsize, sample_ids, offsets, alpha, beta, None)
    scalars = (np.uint64(key), np.int32(dtype == np.float64))
    return Launch("random_beta", _grid(samples), (BLOCK, 1, 1), samples, scalars)


def _samples(shapes, itemsize, sample_ids, offsets, a, b, end):
    n = len(shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a random launch takes at most {MAX_SAMPLES} samples, not {n}")
    counts = np.array([int(np.prod(s, dtype=np.int64)) for s in shapes], np.int64)
    samples = np.zeros(n, SAMPLE)
    if offsets is None:
        offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64) * itemsize
    samples["offset"] = np.asarray(offsets, np.int64)[:n]
    samples["count"] = counts
    samples["sample_id"] = np.asarray(sample_ids, np.int64)
    for name, values in (("a", a), ("b", b), ("end", end)):
        if values is not None:
            samples[name] = np.asarray(values, np.float64)
    return samples


def _grid(samples):
    blocks = int(min(max(-(-int(samples["count"].max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return (blocks, max(len(samples), 1), 1)
