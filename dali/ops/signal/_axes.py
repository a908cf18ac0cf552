"""What the operators on spectrograms (mel_filter_bank, mfcc) share: checking a float32 input
and the per-sample matrices of one batch, one per distinct extent of the transformed axis."""

from __future__ import annotations

import numpy as np


def check_float(op, ws):
    if ws.input_dtype(0) != np.float32:
        raise op.error(f"Unsupported data type: {ws.input_dtype(0)} (the input must be "
                       "float32).", TypeError)


def shapes_and_matrices(ws, axis, matrix_for):
    """The output shapes and the `AxisMatrix` of every sample: `matrix_for(extent)` (memoized
    by the caller) of its extent along `axis`."""
    shapes = np.array(ws.input_storage(0).shapes, np.int64).reshape(ws.batch_size, -1)
    column = shapes[:, axis]
    if len(column) and (column == column[0]).all():     # one extent: one matrix, no sorting
        matrix = matrix_for(int(column[0]))
        shapes[:, axis] = matrix.shape[0]
        return shapes, [matrix] * len(column)
    extents, index = np.unique(column, return_inverse=True)
    made = [matrix_for(int(e)) for e in extents]
    matrices = [made[k] for k in index.tolist()]
    shapes[:, axis] = [made[k].shape[0] for k in index.tolist()]
    return shapes, matrices
