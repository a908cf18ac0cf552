"""The canvas of a rotated image, as DALI sizes it: shared by fn.rotate and fn.bbox_rotate
(whose boxes land on the canvas fn.rotate makes)."""

from __future__ import annotations

import math

import numpy as np


def rotated_sizes(in_hw, angles):
    """`rotated_size` of every sample ((n, 2) int64), computed once per distinct (angle, h, w):
    with Python's math, whose results do not depend on the CPU."""
    rows = np.column_stack([angles, in_hw])
    if len(rows) and (rows == rows[0]).all():         # one angle, one size: the common case
        return np.tile(rotated_size((int(in_hw[0, 0]), int(in_hw[0, 1])), float(angles[0])),
                       (len(rows), 1))
    keys, inverse = np.unique(rows, axis=0, return_inverse=True)
    out = np.array([rotated_size((int(h), int(w)), float(a)) for a, h, w in keys.tolist()],
                   dtype=np.int64).reshape(-1, 2)
    return out[inverse.reshape(-1)]


def rotated_size(in_hw, angle):
    """DALI's output (H, W) for an (h, w) image rotated by `angle` degrees."""
    out_h, out_w, ph, pw = rotated_extents(in_hw, angle)
    return out_h + (out_h - ph) % 2, out_w + (out_w - pw) % 2


def rotated_extents(in_hw, angle):
    """(out_h, out_w, parity_h, parity_w) of an (h, w) image rotated by `angle` degrees: the
    bounding box's extents `ceil(extent - 0.01)` and the parities (0 even, 1 odd) DALI grows
    them to, those of the input extent each mostly comes from."""
    h, w = in_hw
    rad = math.radians(angle)
    c, s = abs(math.cos(rad)), abs(math.sin(rad))
    quarter_turns = math.floor(abs(math.remainder(angle, 360.0)) / 90.0 + 0.5)
    ph, pw = (w, h) if quarter_turns % 2 else (h, w)
    return math.ceil(w * s + h * c - 0.01), math.ceil(w * c + h * s - 0.01), ph % 2, pw % 2
