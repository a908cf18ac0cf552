"""What the pointwise colour operators share: input types, `dtype`, the channel check, per-part
argument values and the samples as the colour kernels take them.

Constant arguments give one matrix and offset for the whole batch, computed once per set of
values (`functools.lru_cache` in the operators): the kernels' storage entry points take a
single matrix for every part, so a batch costs no NumPy work per argument.

The kernels (`dali._ext.kernels.color`) take the whole batch in one call: the samples, one
matrix and offset per *part* and the number of parts of every sample.  A part is a sample,
or a frame of a sequence when an argument input varies per frame (its layout starts with "F",
as `fn.per_frame` makes it); the kernels cut the parts into tiles themselves.
"""

from __future__ import annotations

import numpy as np

from dali import _types, tensors
from dali._types import DALIDataType as T


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
    """Check that every sample (a row of the (samples, ndim) array `shapes`) has `expected`
    channels."""
    c = layout.index("C")
    bad = np.flatnonzero(np.asarray(shapes)[:, c] != expected)
    if bad.size:
        i = int(bad[0])
        raise op.error(f"sample {i}: expected {expected} channels (the \"C\" axis of "
                       f'layout "{layout}"), got {shapes[i][c]}', RuntimeError)


def constant_args(ws, names) -> bool:
    """Whether none of the arguments `names` is an argument input (their values are then the
    same for every batch, and what is derived from them can be memoized)."""
    return not any(ws.is_arg_input(n) for n in names)


def _per_frame_input(ws, name):
    """The argument input of `name` when it is given per frame, else None."""
    if not ws.is_arg_input(name):
        return None
    tl = ws.arg_inputs[name]
    return tl if tl.layout().startswith("F") else None


def frames_per_sample(ws, names, layout, shapes):
    """The number of frames of every sample (`shapes`: (samples, ndim)) when one of the
    arguments `names` is given per frame on a sequence, else None (one part per sample)."""
    if not layout.startswith("F") or all(_per_frame_input(ws, n) is None for n in names):
        return None
    return np.array(shapes[:, 0], np.int64)


def part_values(ws, name, frames) -> np.ndarray:
    """float32 values of the scalar argument `name`, one per part: one per sample when `frames`
    is None, else one per frame (a per-sample value repeated over the sample's frames)."""
    if frames is None:
        return ws.arg_array(name, np.float32)
    tl = _per_frame_input(ws, name)
    if tl is None:
        return np.repeat(ws.arg_array(name, np.float32), frames)
    if len(tl) != ws.batch_size:
        raise ws.op.error(f"argument input `{name}` has {len(tl)} samples but the batch has "
                          f"{ws.batch_size}")
    st = tensors.storage_of(tl)
    sizes = np.prod(st.shapes, axis=1, dtype=np.int64).reshape(-1)
    bad = np.flatnonzero((sizes != 1) & (sizes != frames))
    if bad.size:
        i = int(bad[0])
        raise ws.sample_error(i, f"argument `{name}` is given per frame: it needs one value "
                                 f"per frame ({frames[i]}), got {sizes[i]}")
    flat = np.concatenate([np.asarray(s, np.float32).reshape(-1) for s in st.samples()])
    return np.repeat(flat, np.repeat(np.where(sizes == 1, frames, 1), sizes))
