"""What fn.element_extract, fn.sequence_rearrange and fn.permute_batch share: checking a
sequence input and copying frames (slices along the outermost axis) or whole samples with the
nogil `gather` kernel."""

from __future__ import annotations

import numpy as np

from dali._ext.kernels import gather as _kernel


def frame_bytes(storage):
    """Bytes of one frame (outermost slice) of every sample; 0 for samples without frames."""
    shapes = storage.shapes
    total = np.prod(shapes, axis=1, dtype=np.int64) * storage.dtype.itemsize
    extent = shapes[:, 0]
    return np.floor_divide(total, extent, out=np.zeros_like(total), where=extent > 0)


def check_sequence(op, tl, message):
    """The input's layout, checked to be empty or to start with 'F' (`message` is the error,
    formatted with `layout`)."""
    layout = tl.layout() or ""
    if layout and layout[0] != "F":
        raise op.error(message.format(layout=layout), RuntimeError)
    return layout


def gather(ws, src, dst, sources, fbytes, frames, start):
    _kernel.gather_batch(ws.thread_pool, src, dst, sources, fbytes, frames, start)
