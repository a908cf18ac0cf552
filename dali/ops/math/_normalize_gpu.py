"""Host side of fn.normalize's CUDA kernels (`normalize.cu`): the per-sample descriptors (each
sample collapsed as the CPU kernel collapses it) and the launch configurations, from the
batch's shapes and the plan's `reduced` flags.

The passes run as on the CPU (`Normalize.run_gpu` as `run_cpu`): `stats` launches compute the
sums and, with the MEAN / INV flags, the float32 means and `scale / stddev` factors of every
parameter; with `batch=True` the per-sample sums are combined on the host between a SUM and an
SQ launch (`Normalize._batch_statistics`).
Launches:

- `kernel(grid, block, (src, samples, sums, mean, inv, numpy.int32(flags),
  numpy.float32(scale), numpy.float32(eps), numpy.int32(ddof)))` for `stats`, with sums
  (float64), mean and inv (float32) of `params` values each;
- `kernel(grid, block, (src, dst, samples, mean, inv, numpy.float32(shift)))` for `out`.
"""

from __future__ import annotations

import typing

import numpy as np

DIMS = 16                       # DALI_NORM_DIMS of normalize.cu (the CPU kernel's MAX_DIMS)
FIELDS = 11 + 3 * DIMS          # int64 fields of a NormSample
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
SUM, MEAN, SQ, INV = 1, 3, 4, 12    # the CPU kernel's flags (MEAN implies SUM, INV SQ)
_CODES = {np.dtype(t): c for t, c in (
    (np.int8, "i8"), (np.uint8, "u8"), (np.int16, "i16"), (np.uint16, "u16"),
    (np.int32, "i32"), (np.uint32, "u32"), (np.float32, "f32"))}


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (n, FIELDS) int64: the NormSample array
    poff: np.ndarray            # (n + 1,) int64: the samples' first parameters, then the total


def _code(dtype):
    code = _CODES.get(np.dtype(dtype))
    if code is None:
        raise ValueError(f"normalize.cu has no kernel for {np.dtype(dtype)}")
    return code


def launches(shapes, reduced, in_dtype, out_dtype, src_offsets=None, dst_offsets=None):
    """(stats, out): the `Launch`es of the statistics passes and of the normalization to
    `out_dtype` of a batch of `shapes` ((n, ndim)) reduced along `reduced` (a bool per
    dimension), sharing one descriptor array; offsets are the samples' byte offsets in the
    input and output buffers (None: packed)."""
    samples, poff = _samples(shapes, reduced, in_dtype, out_dtype, src_offsets, dst_offsets)
    src = _code(in_dtype)
    return (Launch(f"normalize_stats_{src}", _grid(samples[:, 4]), (BLOCK, 1, 1), samples,
                   poff),
            Launch(f"normalize_out_{src}_{_code(out_dtype)}", _grid(samples[:, 3]),
                   (BLOCK, 1, 1), samples, poff))


def _samples(shapes, reduced, in_dtype, out_dtype, src_offsets, dst_offsets):
    shapes = np.asarray(shapes, np.int64).reshape(len(shapes), -1)
    n, ndim = shapes.shape
    if n > MAX_SAMPLES:
        raise ValueError(f"a normalize launch takes at most {MAX_SAMPLES} samples, not {n}")
    if len(reduced) != ndim or not 1 <= ndim <= DIMS:
        raise ValueError(f"samples need 1 to {DIMS} dimensions and `reduced` one flag each")
    volumes = np.prod(shapes, axis=1)
    samples = np.zeros((n, FIELDS), np.int64)
    samples[:, 0] = _elements(src_offsets, volumes, in_dtype)
    samples[:, 1] = _elements(dst_offsets, volumes, out_dtype)
    if n:                       # one description per distinct shape
        distinct, which = np.unique(shapes, axis=0, return_inverse=True)
        rows = np.array([_describe(s, reduced) for s in distinct], np.int64)
        samples[:, 3:] = rows[which.reshape(-1)]
    params = samples[:, 4]
    poff = np.concatenate([[0], np.cumsum(params)]).astype(np.int64)
    samples[:, 2] = poff[:-1]
    return samples, poff


def _describe(shape, reduced):
    """The NormSample fields from `size` on: normalize.pyx's `_geometry` (extents of 1
    dropped, neighbours both reduced or both kept merged)."""
    ext, red = [], []
    for e, r in zip(shape, reduced, strict=True):
        if e == 1:
            continue
        if ext and red[-1] == bool(r):
            ext[-1] *= int(e)
        else:
            ext.append(int(e))
            red.append(bool(r))
    if not ext:
        ext, red = [1], [True]
    nd = len(ext)
    pstr, estr = [0] * nd, [0] * nd
    size = stride = 1
    for d in range(nd - 1, -1, -1):
        estr[d] = size
        size *= ext[d]
        if not red[d]:
            pstr[d] = stride
            stride *= ext[d]
    if red[-1]:
        outer, n, rows, kept = nd - 1, ext[-1], 0, 0
    else:
        outer = nd - 2 if nd >= 2 else 0
        rows, kept = (ext[-2] if nd >= 2 else 1), ext[-1]
        n = rows * kept
    pad = [0] * (DIMS - nd)
    return [size, stride, size // stride if stride else 0, nd, outer, n, rows, kept,
            *ext, *pad, *pstr, *pad, *estr, *pad]


def _grid(counts):
    blocks = int(min(max(-(-int(counts.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return (blocks, max(len(counts), 1), 1)


def _elements(offsets, volumes, dtype):
    """Element offsets of the samples: `offsets` in bytes, or packed when None."""
    if offsets is None:
        return np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64)
    itemsize = np.dtype(dtype).itemsize
    offsets = np.asarray(offsets, np.int64)
    if np.any(offsets % itemsize):
        raise ValueError("sample offsets must be multiples of the element size")
    return offsets // itemsize
