"""What fn.zeros, ones, full and their *_like forms share: the output shapes from `shape`,
the layout check, and filling the outputs with the nogil `fill` kernel.

Every output sample is a pattern repeated: one element for zeros/ones and a scalar fill
value, otherwise the fill value broadcast (NumPy rules, the output shape fixed) to the output's
innermost axes it spans.  A fill value that already has those axes' shape (after dropping its
leading 1s) is its own pattern; only other broadcasts (through inner axes of extent 1) build
a pattern per sample.
"""

from __future__ import annotations

import numpy as np

from dali._ext.kernels import fill as _kernel
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg
from dali._types import DALIDataType as T

SHAPE = Arg("shape", T._INT32_VEC, None, tensor=True,
            doc="Shape of the output samples (by default a scalar).")
LAYOUT = Arg("layout", T.TENSOR_LAYOUT, None,
             doc="Output layout; if given and not empty, it must have one name per output "
                 "dimension.")


def shapes(op, ws):
    """The (batch_size, ndim) int64 output shapes given by the `shape` argument."""
    n = ws.batch_size
    if not ws.arg_given("shape"):
        return np.zeros((n, 0), np.int64)
    rows = ws.arg_rows("shape", np.int64)
    if rows is None:
        values = ws.arg("shape")
        if len({len(v) for v in values}) > 1:
            raise op.error("The `shape` of every sample must have the same number of "
                           "dimensions.", RuntimeError)
        rows = np.array([np.asarray(v, np.int64) for v in values]).reshape(n, -1)
    if (rows < 0).any():
        raise op.error("Input size less than zero not supported.", RuntimeError)
    out = np.ascontiguousarray(rows, np.int64)
    out.setflags(write=False)
    return out


def layout(op, ndim):
    """The `layout` argument, checked against the output's number of dimensions."""
    lay = op.args["layout"] or ""
    if lay and len(lay) != ndim:
        raise op.error(f"Layout '{lay}' has {len(lay)} dimensions but output shape has {ndim} "
                       "dimensions.", RuntimeError)
    return lay


def constant(value, dtype):
    """A one-sample pattern batch holding `value` as `dtype`."""
    return BatchStorage.from_arrays([np.array(value, dtype)])


def patterns(op, fill, out_shapes):
    """The pattern batch for filling samples of `out_shapes` with the samples of `fill` (a
    contiguous BatchStorage), broadcast as NumPy does; raises DALI's error where they cannot
    be."""
    if fill.ndim == 0:
        return fill
    fill_shapes = fill.shapes
    n, ndim = out_shapes.shape
    if fill.ndim <= ndim and np.array_equal(fill_shapes, out_shapes[:, ndim - fill.ndim:]):
        return fill
    blocks = []
    for i, (value, shape) in enumerate(zip(fill.samples(), out_shapes.tolist(), strict=True)):
        f = tuple(value.shape)
        while f and f[0] == 1:
            f = f[1:]
        value = value.reshape(f)
        tail = tuple(shape[len(shape) - len(f):]) if f else ()
        if len(f) > len(shape) or any(a != b and a != 1 for a, b in zip(f, tail, strict=True)):
            raise op.error(f"Shapes {' x '.join(map(str, shape))} and "
                           f"{' x '.join(map(str, fill_shapes[i].tolist()))} can't be "
                           "broadcast.", RuntimeError)
        blocks.append(np.ascontiguousarray(np.broadcast_to(value, tail)))
    return BatchStorage.from_arrays(blocks)


def run(ws, pattern):
    _kernel.fill_batch(ws.thread_pool, pattern, ws.outputs[0])
