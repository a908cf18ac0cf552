"""Which frames of a clip a sample takes: the frame selection of `decoders.video` and the
padding of indices past the clip's end (`pad_mode`), as DALI 2.4 computes them.

A selection is an int64 array of frame indices; after `pad`, -1 marks a frame filled with the
constant `fill_value`."""

from __future__ import annotations

import numpy as np

PAD_MODES = {"none": "none", "constant": "constant", "edge": "edge", "repeat": "edge",
             "reflect_1001": "reflect_1001", "symmetric": "reflect_1001",
             "reflect_101": "reflect_101", "reflect": "reflect_101"}


def pad_mode(name):
    """The canonical name of pad mode `name`; ValueError (DALI's message) for an unknown one."""
    mode = PAD_MODES.get(name)
    if mode is None:
        raise ValueError(f"Invalid pad_mode: {name}\nValid options are: none, constant, edge, "
                         "reflect_1001, reflect_101")
    return mode


def sequence(count, start, stride, length=None, end=None):
    """Frames start, start + stride, ... of a clip of `count` frames: `length` of them, those
    before `end`, or (neither given) those before the clip's end."""
    if length is None:
        stop = count if end is None else end
        length = max(0, -(-(stop - start) // stride))
    return start + stride * np.arange(length, dtype=np.int64)


def pad(frames, count, mode):
    """`frames` with the indices outside [0, count) resolved by canonical pad `mode`:
    -1 (constant), the nearest end (edge), mirrored (reflect_101 without repeating the edge
    frame, reflect_1001 repeating it) or dropped (none)."""
    inside = (frames >= 0) & (frames < count)
    if inside.all():
        return frames
    if mode == "none":
        return frames[inside]
    if mode == "constant":
        return np.where(inside, frames, -1)
    if mode == "edge" or count == 1:
        return np.clip(frames, 0, count - 1)
    if mode == "reflect_101":
        period = 2 * (count - 1)
        i = np.abs(frames) % period
        return np.where(i >= count, period - i, i)
    i = np.where(frames < 0, -frames - 1, frames) % (2 * count)
    return np.where(i >= count, 2 * count - 1 - i, i)
