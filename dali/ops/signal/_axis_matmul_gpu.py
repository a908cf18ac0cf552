"""Host side of fn.mel_filter_bank's and fn.mfcc's CUDA kernel (`axis_matmul.cu`): the
matrices' weights and bands, and one AxisPiece per work item of the CPU kernel
(`axis_matmul.pyx`), whose column count decides the order of the sums, from the plan (`axis`,
`matrices`) and the batch's shapes and byte offsets.  Pure numpy.

A launch is `axis_matmul(grid, block, (src, dst, weights, lo, hi, pieces))` with the arrays of
`Launch` on the device; None when there is nothing to compute.  `run` is both operators'
`run_gpu`.
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 12                     # int64 fields of an AxisPiece
BLOCK = 256
MAX_BLOCKS_X = 1024
MAX_PIECES = 65535              # gridDim.y
ITEM_MACS = 1e6                 # axis_matmul.pyx's _ITEM_MACS: its work items' size
PARTIAL_BELOW = 16              # axis_matmul.h's DALI_AXIS_BLOCK: narrower items sum in 4 parts


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    weights: np.ndarray         # float32: the distinct matrices, row-major, back to back
    lo: np.ndarray              # int64: every row's first non-zero column
    hi: np.ndarray              # int64: one past its last
    pieces: np.ndarray          # (pieces, FIELDS) int64: the AxisPiece array


def _bands(w):
    """(lo, hi) of the non-zero columns of every row of `w`, as `AxisMatrix` makes them."""
    nz = w != 0
    any_nz = nz.any(axis=1)
    lo = np.where(any_nz, nz.argmax(axis=1), 0)
    hi = np.where(any_nz, w.shape[1] - nz[:, ::-1].argmax(axis=1), 0)
    return lo.astype(np.int64), hi.astype(np.int64)


def launch(shapes, matrices, axis, src_offsets=None, dst_offsets=None):
    """The `Launch` applying `matrices[i]` (`AxisMatrix`) along `axis` of float32 sample i."""
    shapes = np.asarray(shapes, np.int64)
    n = len(shapes)
    shapes = shapes.reshape(n, -1)
    if len(matrices) != n or not 0 <= axis < shapes.shape[1]:
        raise ValueError("one matrix per sample and an axis of the samples")
    index, weights, which = {}, [], np.empty(n, np.int64)
    for i, m in enumerate(matrices):          # usually one matrix for the whole batch
        k = index.get(id(m))
        if k is None:
            k = index[id(m)] = len(weights)
            weights.append(np.ascontiguousarray(m.weights, np.float32))
        which[i] = k
    nout = np.array([w.shape[0] for w in weights], np.int64)[which]
    nin = np.array([w.shape[1] for w in weights], np.int64)[which]
    if (shapes[:, axis] != nin).any():
        raise ValueError(f"the samples' extents along axis {axis} do not match the matrices")
    bands = [_bands(w) for w in weights]
    macs = np.maximum(1, np.array([int((h - lo).sum()) for lo, h in bands], np.int64))[which]
    sizes = np.array([w.size for w in weights], np.int64)
    rows = np.array([len(w) for w in weights], np.int64)
    w_at = (np.cumsum(sizes) - sizes)[which]
    band_at = (np.cumsum(rows) - rows)[which]
    outer = np.prod(shapes[:, :axis], axis=1, dtype=np.int64)
    inner = np.prod(shapes[:, axis + 1:], axis=1, dtype=np.int64)
    offsets = []
    for given, per in ((src_offsets, nin), (dst_offsets, nout)):
        vol = outer * per * inner * 4
        given = np.cumsum(vol) - vol if given is None else np.asarray(given, np.int64)
        if given.shape != (n,) or (given % 4).any():
            raise ValueError("sample offsets must be one per sample, multiples of 4 bytes")
        offsets.append(given // 4)
    # the CPU's work items: `pieces` per sample, cutting the outer rows, or the columns when
    # there is one outer row
    pieces = np.maximum(1, np.minimum((outer * inner * macs / ITEM_MACS).astype(np.int64),
                                      np.where(outer > 1, outer, inner)))
    total = int(pieces.sum())
    if total > MAX_PIECES:
        raise ValueError(f"an axis_matmul launch takes at most {MAX_PIECES} pieces, not "
                         f"{total}")
    sample = np.repeat(np.arange(n), pieces)
    t = np.arange(total) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    p, o, c = pieces[sample], outer[sample], inner[sample]
    by_rows = (o > 1) | (p == 1)
    table = np.empty((total, FIELDS), np.int64)
    table[:, 0], table[:, 1] = offsets[0][sample], offsets[1][sample]
    table[:, 2], table[:, 3], table[:, 4] = nin[sample], nout[sample], c
    table[:, 5] = np.where(by_rows, o * t // p, 0)
    table[:, 6] = np.where(by_rows, o * (t + 1) // p, o)
    table[:, 7] = np.where(by_rows, 0, c * t // p)
    table[:, 8] = np.where(by_rows, c, c * (t + 1) // p)
    table[:, 9], table[:, 10] = w_at[sample], band_at[sample]
    table[:, 11] = (table[:, 8] - table[:, 7]) < PARTIAL_BELOW
    count = (table[:, 6] - table[:, 5]) * table[:, 3] * (table[:, 8] - table[:, 7])
    if not count.any():
        return None
    blocks = int(min(max(-(-int(count.max()) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch("axis_matmul", (blocks, total, 1), (BLOCK, 1, 1),
                  np.concatenate([w.reshape(-1) for w in weights]),
                  np.concatenate([b[0] for b in bands]), np.concatenate([b[1] for b in bands]),
                  table)


def run(ws, plan):
    """The `run_gpu` of the operators whose plan has `axis` and `matrices` (one AxisMatrix per
    sample): one launch over the batch."""
    src, out = ws.input_storage(0), ws.outputs[0]
    done = launch(src.shapes, plan.matrices, plan.axis, src.offsets, out.offsets)
    if done is not None:
        ws.gpu.launch(__file__, done.kernel, done.grid, done.block,
                      (src, out, done.weights, done.lo, done.hi, done.pieces))
