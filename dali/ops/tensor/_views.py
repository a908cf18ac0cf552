"""What the tensor operators share: a view of a batch with new sample shapes and a memo of
the per-batch shape computation (reshape, reinterpret, expand_dims, squeeze), and the plan of
an output shaped like the input (cast, cast_like, copy).

Their outputs are the input's bytes with new shapes (and, for reinterpret, a new type): a
contiguous batch becomes a `BatchStorage.viewed_as` view (same block, same offsets, no Python
per sample).  The new shapes are computed with NumPy on the (num_samples, ndim) shape array of
the whole batch; as most pipelines feed batches of one repeated shape, the result is memoized
on the input shapes (the executor hands out the same read-only shape array for a repeated
shape, so a hit is usually an identity check).
"""

from __future__ import annotations

import numpy as np

from dali import _operator
from dali._ext.tensor_storage import BatchStorage


def viewed(storage, dtype, shapes):
    """`storage`'s bytes as samples of `dtype` and `shapes`, sharing its memory.

    Parameters
    ----------
    storage : BatchStorage
    dtype : numpy dtype
    shapes : int64 ndarray of shape (num_samples, ndim)
        The new shapes; each sample keeps its size in bytes.
    """
    if storage.is_contiguous:
        return storage.viewed_as(dtype, shapes)
    if storage.num_samples == 0:
        return BatchStorage.allocate(dtype, [], ndim=shapes.shape[1])
    # Per-sample storage (made by operators that know their output shapes only after running).
    return BatchStorage.from_samples([
        np.ascontiguousarray(s).reshape(-1).view(np.uint8).view(dtype).reshape(tuple(shape))
        for s, shape in zip(storage.samples(), shapes.tolist(), strict=True)])


def frozen(arr):
    """`arr` made read-only (shape arrays may be shared between batches)."""
    arr.setflags(write=False)
    return arr


class ShapeMemo:
    """One-entry memo of a per-batch computation keyed by the input shapes (and `extra`).

    The entry is one tuple, replaced whole, so concurrent readers see a consistent entry.
    """

    __slots__ = ("_entry",)

    def __init__(self):
        self._entry = None

    def get(self, shapes, extra=()):
        """The value stored for these shapes and `extra`, or None."""
        entry = self._entry
        if entry is None or entry[2] != extra:
            return None
        if entry[0] is shapes:
            return entry[3]
        if entry[1] == (shapes.shape, shapes.tobytes()):
            return entry[3]
        return None

    def put(self, shapes, value, extra=()):
        """Remember `value` for these shapes and `extra`; returns `value`."""
        self._entry = (shapes, (shapes.shape, shapes.tobytes()), extra, value)
        return value


def same_shapes_plan(ws, dtype):
    """The plan of an operator whose output 0 has input 0's shapes and layout, of `dtype`."""
    tl = ws.inputs[0]
    storage = ws.input_storage(0)
    return _operator.Plan([_operator.OutputDesc(storage.shapes, dtype, tl.layout(),
                                                storage.ndim)])
