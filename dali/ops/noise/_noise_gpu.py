"""Host side of the noise operators' CUDA kernel (`noise.cu`): the per-sample descriptors and
the launch configuration of `noise_apply`, from the batch's shapes and offsets, the samples'
kernel parameters and channel groups (what `_noise.Noise.run_cpu` hands the CPU kernel) and
their ids (the counters of their random streams).

A launch is `noise_apply(grid, block, launch.arguments(src, dst, key))`, `key` being the
operator's Philox key of the iteration (`ws.random_key()`).
"""

from __future__ import annotations

import typing

import numpy as np

from dali._ext.kernels import noise as _kernel

BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
# NoiseSample of noise.cu
SAMPLE = np.dtype([("src_offset", np.int64), ("dst_offset", np.int64), ("pixels", np.int64),
                   ("nc", np.int64), ("inner", np.int64), ("sample_id", np.int64),
                   ("a", np.float64), ("b", np.float64), ("c", np.float64),
                   ("d", np.float64)])
# noise.cu's type codes (those of noise.h)
DTYPES = {np.dtype(np.float32): 0, np.dtype(np.uint8): 3, np.dtype(np.uint16): 4,
          np.dtype(np.uint32): 5, np.dtype(np.uint64): 6, np.dtype(np.int8): 7,
          np.dtype(np.int16): 8, np.dtype(np.int32): 9, np.dtype(np.int64): 10}


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (n,) SAMPLE records
    scalars: tuple              # the kernel's arguments after the key

    def arguments(self, src, dst, key):
        """The kernel's arguments in order: input and output batches, descriptors, key."""
        return (src, dst, self.samples.view(np.uint8), np.int32(len(self.samples)),
                np.uint64(key), *self.scalars)


def launch(mode, shapes, dtype, sample_ids, params, groups=None, src_offsets=None,
           dst_offsets=None):
    """The `Launch` adding `mode` noise (a key of the CPU kernel's MODES) to samples of `shapes`
    and `dtype`, with the kernel's (samples, 4) `params` and (samples, 2) channel `groups`
    (None: every element on its own), as `_kernel.noise_batch` takes them; offsets: the
    samples' byte offsets (None: packed)."""
    dtype = np.dtype(dtype)
    if dtype not in DTYPES:
        raise ValueError(f"noise.cu has no kernel for {dtype}")
    if mode not in _kernel.MODES:
        raise ValueError(f"unknown noise {mode!r}")
    n = len(shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a noise launch takes at most {MAX_SAMPLES} samples, not {n}")
    sizes = np.array([int(np.prod(s, dtype=np.int64)) for s in shapes], np.int64)
    groups = np.ones((n, 2), np.int64) if groups is None else np.asarray(groups, np.int64)
    params = np.asarray(params, np.float64)
    if params.shape != (n, 4) or groups.shape != (n, 2):
        raise ValueError("one row of 4 parameters and one group per sample expected")
    per_pixel = groups[:, 0] * groups[:, 1]
    if np.any(groups < 1) or np.any(sizes % np.maximum(per_pixel, 1)):
        raise ValueError("every sample's size must be a multiple of nc * inner")
    samples = np.zeros(n, SAMPLE)
    samples["src_offset"] = _offsets(src_offsets, sizes, dtype.itemsize)
    samples["dst_offset"] = _offsets(dst_offsets, sizes, dtype.itemsize)
    samples["pixels"] = sizes // groups[:, 0]
    samples["nc"], samples["inner"] = groups[:, 0], groups[:, 1]
    samples["sample_id"] = np.asarray(sample_ids, np.int64).reshape(n)
    for k, name in enumerate("abcd"):
        samples[name] = params[:, k]
    if n == 0:                  # the grid's one row reads a descriptor
        samples = np.zeros(1, SAMPLE)
    lo, hi = _kernel._CLAMP[dtype]
    scalars = (np.int32(_kernel.MODES[mode]), np.int32(DTYPES[dtype]), np.int32(dtype.itemsize),
               np.float64(lo), np.float64(hi))
    blocks = int(min(max(-(-int(samples["pixels"].max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch("noise_apply", (blocks, max(n, 1), 1), (BLOCK, 1, 1), samples, scalars)


def _offsets(offsets, sizes, itemsize):
    if offsets is None:
        return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) * itemsize
    return np.asarray(offsets, np.int64)[:len(sizes)]
