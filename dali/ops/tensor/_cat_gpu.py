"""Host side of fn.cat's and fn.stack's CUDA kernels (`cat.cu`): one launch per input, built
from the plan `_join.plan` makes (`outer`: rows of each output sample, `inner`: bytes of each
input's block in a row) and the batches' byte offsets.

A launch is `kernel(grid, block, (src, dst, samples))` with the kernel `Launch.kernel` of
`cat.cu`, `src` the input's buffer, `dst` the output's and `samples` the JoinSample array on
the device.
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 5                      # int64 fields of a JoinSample
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y


class Launch(typing.NamedTuple):
    kernel: str                 # the kernel's name in cat.cu
    grid: tuple
    block: tuple
    samples: np.ndarray         # (max(n, 1), FIELDS) int64: the JoinSample array
    input: int                  # which input it copies


def launches(outer, inner, src_offsets=None, dst_offsets=None):
    """The `Launch`es of a join of `inner.shape[1]` inputs: `outer` (n,) rows per output
    sample, `inner` (n, inputs) bytes of each input's block in a row; offsets are the
    samples' byte offsets, src_offsets one array per input (None: packed)."""
    outer = np.asarray(outer, np.int64)
    inner = np.asarray(inner, np.int64).reshape(len(outer), -1)
    n, k = inner.shape
    if n > MAX_SAMPLES:
        raise ValueError(f"a join launch takes at most {MAX_SAMPLES} samples, not {n}")
    volumes = outer[:, None] * inner                    # bytes of each input sample
    row = inner.sum(axis=1)
    if src_offsets is None:
        src_offsets = [_packed(volumes[:, q]) for q in range(k)]
    src_offsets = [np.asarray(o, np.int64) for o in src_offsets]
    dst_offsets = _packed(outer * row) if dst_offsets is None else \
        np.asarray(dst_offsets, np.int64)
    columns = np.cumsum(inner, axis=1) - inner          # byte offset of each block in a row
    word = 8
    for values in (inner, columns, dst_offsets, *src_offsets):
        while word > 1 and np.any(values % word):
            word //= 2
    out = []
    for q in range(k):
        samples = np.zeros((max(n, 1), FIELDS), np.int64)
        samples[:n, 0] = src_offsets[q] // word
        samples[:n, 1] = (dst_offsets + columns[:, q]) // word
        samples[:n, 2] = volumes[:, q] // word
        samples[:n, 3] = np.maximum(inner[:, q] // word, 1)
        samples[:n, 4] = row // word
        blocks = int(min(max(-(-int(samples[:, 2].max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
        out.append(Launch(f"join_{word}", (blocks, max(n, 1), 1), (BLOCK, 1, 1), samples, q))
    return out


def for_join(plan, src_offsets=None, dst_offsets=None):
    """The launches of fn.cat's or fn.stack's `plan` (`_join.plan`)."""
    return launches(plan.outer, plan.inner, src_offsets, dst_offsets)


def _packed(nbytes):
    return np.concatenate([[0], np.cumsum(nbytes)[:-1]]).astype(np.int64)
