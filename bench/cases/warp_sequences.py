"""Affine warps of sequences with per-frame arguments: fn.rotate with one angle per frame
(`fn.per_frame`) and fn.warp_affine with one 2x3 matrix per frame, on 64 sequences of 4
frames ("sequences" input kind: the "image" or "small" photos of the batch shifted a few
pixels per frame, FHWC) with the angles and matrices fed by their own external sources."""

import numpy as np

from bench import opcase
from bench.opcase import SIDE, OpCase

FRAMES = 4


@opcase.input_kind("sequences")
def _sequences(size, batch_size):
    images = opcase.batch("u8", size, batch_size)[0]
    return [np.stack([np.roll(x, 2 * k, 1) for k in range(FRAMES)]) for x in images], "FHWC"


@opcase.input_kind("frame_angles")
def _angles(size, batch_size):
    rng = np.random.default_rng(3)
    return [rng.uniform(-30, 30, FRAMES).astype(np.float32) for _ in range(batch_size)], None


@opcase.input_kind("frame_matrices")
def _matrices(size, batch_size):
    rng = np.random.default_rng(4)
    out = []
    for _ in range(batch_size):
        m = np.tile(np.array([[1, 0, 0], [0, 1, 0]], np.float32), (FRAMES, 1, 1))
        m[:, :, :2] += rng.uniform(-0.1, 0.1, (FRAMES, 2, 2)).astype(np.float32)
        out.append(m)
    return out, None


CASE_LIST = [
    OpCase("rotate.per_frame", "rotate",
           lambda fn, types, x, a, size: fn.rotate(x, angle=fn.per_frame(a),
                                                   size=(SIDE[size],) * 2),
           ("sequences", "frame_angles")),
    OpCase("warp_affine.per_frame", "warp_affine",
           lambda fn, types, x, m, size: fn.warp_affine(x, matrix=fn.per_frame(m)),
           ("sequences", "frame_matrices")),
]
