"""Host side of fn.reductions.*' CUDA kernels (`reductions.cu`): the per-sample descriptors
(each sample's shape collapsed as the CPU kernel's reduce.h collapses it) and the launch
configuration, from what the CPU path's plan holds (the reduced-axis flags, the output type,
the mean batch of variance and std_dev), for the operators' `run_gpu`.

A launch is `kernel(grid, block, launch.arguments(src, dst, mean))` with `mean` the mean batch
or a null address.
"""

from __future__ import annotations

import typing

import numpy as np

from dali._ext.kernels import reduce as _kernel

DIMS = 16                       # RED_DIMS of reductions.cu
SAMPLE_FIELDS = 7 + 2 * DIMS    # int64 fields of a RedSample
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
_CODES = ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32")    # _kernel.TYPES'


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (n, SAMPLE_FIELDS) int64: the RedSample array
    op: int
    dst_type: int
    ddof: int

    def arguments(self, src, dst, mean):
        """The kernel's arguments in order, around the batches."""
        return (src, dst, mean, self.samples, np.int32(len(self.samples)), np.int32(self.op),
                np.int32(self.dst_type), np.int64(self.ddof))


def launch(op, reduced, shapes, src_dtype, dst_dtype, mean_shapes=None, src_offsets=None,
           dst_offsets=None, mean_offsets=None, ddof=0):
    """The `Launch` reducing samples of `shapes` (n, ndim) over the axes flagged in `reduced`
    (the plan's `reduced`), `op` one of the CPU kernel's OPS, from `src_dtype` to `dst_dtype`
    (the plan's output type); variance and std_dev take the float32 means, one per sample or
    one per output element (`mean_shapes`).  Offsets: the samples' bytes offsets in the
    batches (None: packed)."""
    src_dtype, dst_dtype = np.dtype(src_dtype), np.dtype(dst_dtype)
    if op not in _kernel.OPS:
        raise ValueError(f"unknown reduction {op!r}")
    if src_dtype not in _kernel.TYPES or dst_dtype not in _kernel.TYPES:
        raise ValueError(f"reductions.cu does not reduce {src_dtype} to {dst_dtype}")
    if (mean_shapes is not None) != (op in ("variance", "std_dev")):
        raise ValueError("variance and std_dev (only) take a mean")
    shapes = np.asarray(shapes, np.int64).reshape(len(shapes), -1)
    n = len(shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a reduction launch takes at most {MAX_SAMPLES} samples, not {n}")
    flags = np.asarray(reduced, bool)
    samples = np.zeros((n, SAMPLE_FIELDS), np.int64)
    for i in range(n):
        samples[i, 3:] = _collapse(shapes[i], flags)
    out_counts, counts = samples[:, 4], samples[:, 5]
    samples[:, 0] = _offsets(src_offsets, out_counts * counts, src_dtype.itemsize)
    samples[:, 1] = _offsets(dst_offsets, out_counts, dst_dtype.itemsize)
    if mean_shapes is not None:
        mean_counts = np.prod(np.asarray(mean_shapes, np.int64).reshape(n, -1), axis=1)
        bad = (mean_counts != 1) & (mean_counts != out_counts)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"sample {i}: the mean has {mean_counts[i]} elements, not 1 or "
                             f"{out_counts[i]}")
        samples[:, 2] = _offsets(mean_offsets, mean_counts, 4)
        samples[:, 3] = mean_counts
    blocks = int(min(max(-(-int(out_counts.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(f"reduce_{_CODES[_kernel.TYPES.index(src_dtype)]}", (blocks, max(n, 1), 1),
                  (BLOCK, 1, 1), samples, _kernel.OPS.index(op),
                  _kernel.TYPES.index(dst_dtype), int(ddof))


def _collapse(shape, reduced):
    """(mean_count 1, out_count, count, ndim, extents, reduced flags) of a RedSample from the
    tail at field 3: reduce.h's dali_red_collapse."""
    extents, flags = [], []
    out = count = 1
    for e, r in zip(shape.tolist(), reduced.tolist(), strict=True):
        if r:
            count *= e
        else:
            out *= e
        if e == 1:
            continue
        if flags and flags[-1] == r:
            extents[-1] *= e
        else:
            extents.append(e)
            flags.append(r)
    if len(extents) > DIMS:
        raise ValueError(f"a sample collapses to {len(extents)} axes, reductions.cu takes {DIMS}")
    row = np.zeros(SAMPLE_FIELDS - 3, np.int64)
    row[:4] = 1, out, count, len(extents)
    row[4:4 + len(extents)] = extents
    row[4 + DIMS:4 + DIMS + len(flags)] = flags
    return row


def _offsets(given, volumes, item):
    if given is not None:
        return np.asarray(given, np.int64)
    return np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64) * item
