"""Host side of fn.bb_flip's and fn.box_encoder's CUDA kernels (`boxes.cu`): the per-sample
descriptors and the launches, built from the CPU path's plan (bb_flip: `size`, 4 or 6 floats a
box, `counts`, boxes per sample), the operator's arguments and the batches' byte offsets.  Pure
numpy.

Launches: `bb_flip(grid, block, (src, dst, samples, numpy.int32(size), numpy.int32(ltrb)))`;
box_encoder's two (`Encoder`): `box_encoder_force(grid, block, (boxes, anchors, forced,
samples, numpy.int64(anchors)))` then `box_encoder(grid, block, (boxes, labels, anchors,
centers, forced, out_boxes, out_labels, samples, params, numpy.int64(anchors),
numpy.int32(offset)))`, with `forced` an int64 scratch buffer of `Encoder.forced` elements.
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 5                      # int64 fields of a BoxSample
BLOCK = 128
MAX_BLOCKS_X = 1024
MAX_SAMPLES = 65535             # gridDim.y


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (n, FIELDS) int64
    size: np.int32
    ltrb: np.int32


def packed_offsets(counts, size):
    """Byte offsets of samples of `counts` boxes of `size` floats lying back to back."""
    bytes_ = np.asarray(counts, np.int64) * size * 4
    return np.cumsum(bytes_) - bytes_


def bb_flip(size, counts, horizontal, vertical, ltrb, src_offsets=None, dst_offsets=None):
    """The `Launch` of a batch: `counts` boxes of `size` (4 or 6) floats per sample, per-sample
    flags `horizontal` and `vertical`, samples at byte offsets (None: packed); None when the
    batch has no samples (nothing to launch)."""
    counts = np.asarray(counts, np.int64).reshape(-1)
    n = len(counts)
    if size not in (4, 6):
        raise ValueError(f"a box has 4 or 6 coordinates, not {size}")
    if n > MAX_SAMPLES:
        raise ValueError(f"a bb_flip launch takes at most {MAX_SAMPLES} samples, not {n}")
    if n == 0:
        return None
    packed = packed_offsets(counts, size)
    offsets = []
    for given in (src_offsets, dst_offsets):
        given = packed if given is None else np.asarray(given, np.int64).reshape(-1)
        if given.shape != (n,) or (given % 4).any():
            raise ValueError("sample offsets must be one per sample, multiples of 4 bytes")
        offsets.append(given // 4)
    samples = np.empty((n, FIELDS), np.int64)
    samples[:, 0], samples[:, 1], samples[:, 2] = offsets[0], offsets[1], counts
    samples[:, 3] = np.broadcast_to(np.asarray(horizontal) != 0, (n,))
    samples[:, 4] = np.broadcast_to(np.asarray(vertical) != 0, (n,))
    blocks = int(min(max(-(-int(counts.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch("bb_flip", (blocks, n, 1), (BLOCK, 1, 1), samples, np.int32(size),
                  np.int32(bool(ltrb)))


ENC_FIELDS = 7                  # int64 fields of an EncSample


class Kernel(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple


class Encoder(typing.NamedTuple):
    force: Kernel               # box_encoder_force: one thread per box
    encode: Kernel              # box_encoder: one thread per anchor
    samples: np.ndarray         # (n, ENC_FIELDS) int64: the EncSample array
    params: np.ndarray          # float32: criteria, scale, means[4], stds[4]
    anchors: np.int64
    offset: np.int32
    forced: int                 # int64 elements of the scratch buffer


def box_encoder(counts, label_sizes, num_anchors, criteria, offset, scale, means, stds,
                offsets=(None, None, None, None)):
    """The `Encoder` of a batch of `counts` boxes per sample with `label_sizes` labels (a box's
    label is the first of its equal share), `num_anchors` anchors and the operator's arguments;
    `offsets`: the byte offsets of the samples of boxes, labels, encoded boxes and encoded
    labels (None: packed).  None when the batch has no samples or there are no anchors."""
    counts = np.asarray(counts, np.int64).reshape(-1)
    label_sizes = np.asarray(label_sizes, np.int64).reshape(-1)
    n = len(counts)
    if n > MAX_SAMPLES:
        raise ValueError(f"a box_encoder launch takes at most {MAX_SAMPLES} samples, not {n}")
    if label_sizes.shape != (n,) or (label_sizes < counts).any():
        raise ValueError("every box needs a label")
    if n == 0 or num_anchors == 0:
        return None
    samples = np.empty((n, ENC_FIELDS), np.int64)
    volumes = (4 * counts, label_sizes, np.full(n, 4 * num_anchors), np.full(n, num_anchors))
    for col, given, volume in zip((0, 1, 5, 6), offsets, volumes, strict=True):
        packed = (np.cumsum(volume) - volume) * 4
        given = packed if given is None else np.asarray(given, np.int64).reshape(-1)
        if given.shape != (n,) or (given % 4).any():
            raise ValueError("sample offsets must be one per sample, multiples of 4 bytes")
        samples[:, col] = given // 4
    samples[:, 2] = np.where(counts > 0, label_sizes // np.maximum(counts, 1), 1)
    samples[:, 3] = counts
    samples[:, 4] = np.cumsum(counts) - counts
    params = np.array([criteria, scale, *means, *stds], np.float32)
    if params.shape != (10,):
        raise ValueError("means and stds must have 4 values")

    def launch(kernel, items):
        blocks = int(min(max(-(-int(items) // BLOCK), 1), MAX_BLOCKS_X))
        return Kernel(kernel, (blocks, n, 1), (BLOCK, 1, 1))

    return Encoder(launch("box_encoder_force", counts.max()),
                   launch("box_encoder", num_anchors), samples, params,
                   np.int64(num_anchors), np.int32(bool(offset)), max(int(counts.sum()), 1))
