"""What the pointwise colour operators share: input layouts and types, `dtype`, per-sample and
per-frame argument values, and running a pixel kernel on the thread pool.

Work is split into items of at most `TILE` pixels (whole frames of a sequence where an argument
varies per frame), so that one large image keeps every pool thread busy as well as a batch of
small ones.  The kernels take the whole list of items in one nogil batch call
(`linear_batch`, `convert_space_batch`) on the workspace's thread pool.
"""

from __future__ import annotations

import numpy as np

from dali import _types, tensors
from dali._types import DALIDataType as T

TILE = 1 << 16                   # pixels per work item




def check_type(op, t: T, allowed, what="input") -> T:
    if t not in allowed:
        raise op.error(f"Unsupported {what} type: {_types.type_name(t)}", RuntimeError)
    return t


def output_type(op, in_type: T, allowed) -> T:
    """The `dtype` argument, or the input type when it is not given."""
    wanted = op.args["dtype"]
    out = in_type if wanted is None else T(wanted)
    return check_type(op, out, allowed, "output")


def channels_of(op, shapes, layout, expected):
    """Check that every sample has `expected` channels (the last axis)."""
    c = layout.index("C")
    for i, shape in enumerate(shapes):
        if shape[c] != expected:
            raise op.error(f"sample {i}: expected {expected} channels (the \"C\" axis of "
                           f'layout "{layout}"), got {shape[c]}', RuntimeError)


def frame_values(ws, name, i, frames) -> np.ndarray:
    """Per-frame float32 values of a scalar argument for sample i: one value for every frame,
    or `frames` values when the argument input is marked per-frame (its layout starts with
    "F", as `fn.per_frame` makes it)."""
    tl = ws.arg_inputs.get(name) if ws.is_arg_input(name) else None
    if tl is not None and tl.layout().startswith("F"):
        if len(tl) != ws.batch_size:
            raise ws.op.error(f"argument input `{name}` has {len(tl)} samples but the batch "
                              f"has {ws.batch_size}")
        v = np.asarray(tensors.storage_of(tl).samples()[i], dtype=np.float32).reshape(-1)
        if v.size == 1:
            return np.full(frames, v[0], np.float32)
        if v.size != frames:
            raise ws.sample_error(i, f"argument `{name}` is given per frame: it needs one "
                                     f"value per frame ({frames}), got {v.size}")
        return v
    return np.full(frames, ws.arg(name)[i], np.float32)


def pixel_items(src, dst, layout, cin, cout, per_frame):
    """Split one sample into (src rows, dst rows, frame) items: (pixels, channels) views of at
    most TILE pixels, never straddling a frame boundary when `per_frame`."""
    src = np.ascontiguousarray(src)
    frames = src.shape[0] if "F" in layout and per_frame else 1
    if src.size == 0 or frames == 0:
        return []
    pixels = src.size // (cin * frames)
    s = src.reshape(frames, pixels, cin)
    d = dst.reshape(frames, pixels, cout)
    items = []
    for f in range(s.shape[0]):
        n = s.shape[1]
        for a in range(0, n, TILE):
            items.append((s[f, a:a + TILE], d[f, a:a + TILE], f))
    return items
