"""Constants: `types.Constant`, `types.ScalarConstant` and the hidden `Constant` operator.

A Python scalar used in arithmetic stays a `ScalarConstant` (it becomes an argument of the
arithmetic operator); arrays, and scalars given a shape, layout or device, become `Constant`
operator nodes that output the same tensor for every sample.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._graph import data_node
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T


class ScalarConstant:
    """A scalar constant with a DALI type (Python int -> INT32, float -> FLOAT, bool -> BOOL)."""

    def __init__(self, value, dtype=None):
        if dtype is None:
            dtype = _types.scalar_type(value)
        self.dtype = _types.to_dali_type(dtype)
        np_type = _types.to_numpy_type(self.dtype)
        self.value = np_type(value).item()

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __bool__(self):
        return bool(self.value)

    def __repr__(self):
        return repr(self.value)

    __str__ = __repr__


# Like DALI, a constant without an explicit dtype narrows 64-bit types (Python ints and int64
# arrays give INT32, floats FLOAT); an explicit dtype is kept, FLOAT64 included.
_NARROW = {np.dtype(np.int64): np.int32, np.dtype(np.uint64): np.uint32,
           np.dtype(np.float64): np.float32}


def _as_array(value, dtype):
    if dtype is not None:
        return np.asarray(value, dtype=_types.dtype_of(_types.to_dali_type(dtype)))
    arr = np.asarray(value)
    return arr.astype(_NARROW[arr.dtype]) if arr.dtype in _NARROW else arr


def Constant(value, dtype=None, shape=None, layout=None, device=None, **kwargs):  # noqa: N802
    """A constant: a ScalarConstant for a plain scalar, else a DataNode of a Constant operator.

    Parameters
    ----------
    value : scalar, list or array
    dtype : DALIDataType or numpy dtype, optional
    shape : tuple, optional
        Broadcast the value to this shape.
    layout : str, optional
    device : str, optional
    """
    if np.isscalar(value) and shape is None and layout is None and device is None and not kwargs:
        return ScalarConstant(value, dtype)
    arr = _as_array(value, dtype)
    if shape is not None:
        arr = np.broadcast_to(arr, tuple(shape))
    return constant_node(arr, layout=layout, device=device, **kwargs)


@data_node.implements("constant")
def constant_node(value, layout=None, device=None, **kwargs):
    """A Constant operator node producing `value` for every sample."""
    if isinstance(value, ScalarConstant):
        arr = np.asarray(value.value, dtype=_types.dtype_of(value.dtype))
    else:
        arr = _as_array(value, None)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"a constant must be numeric, got {arr.dtype} ({value!r})")
    dtype = _types.dali_type_of(arr.dtype)
    flat = arr.reshape(-1)
    data = {"fdata": flat.astype(np.float64).tolist()} if arr.dtype.kind == "f" else \
        {"idata": flat.astype(np.int64).tolist()}
    return _operator.call(ConstantOp, (), dict(
        shape=list(arr.shape), dtype=dtype, layout=layout or None, device=device,
        **data, **kwargs))


@_registry.register
class ConstantOp(_operator.Operator):
    schema = Schema(
        "constant", inputs=0, outputs=1, devices=("cpu", "gpu"), class_name="Constant",
        internal=True, doc="Outputs the same tensor for every sample.",
        args=[Arg("fdata", T._FLOAT_VEC, None, doc="Floating-point values (flattened)."),
              Arg("idata", T._INT64_VEC, None, doc="Integer values (flattened)."),
              Arg("shape", T._INT32_VEC, None, doc="Shape of the tensor."),
              Arg("dtype", T.DATA_TYPE, None, doc="Type of the output."),
              Arg("layout", T.TENSOR_LAYOUT, None, doc="Layout of the output.")])

    def setup(self):
        a = self.args
        data = a["fdata"] if a["fdata"] is not None else a["idata"]
        if data is None:
            raise self.error("either `fdata` or `idata` must be given")
        dtype = a["dtype"] if a["dtype"] is not None else (
            T.FLOAT if a["fdata"] is not None else T.INT32)
        shape = tuple(a["shape"]) if a["shape"] is not None else (len(data),)
        value = np.asarray(data, dtype=_types.dtype_of(dtype))
        if value.size == 1 and int(np.prod(shape)) != 1:
            value = np.broadcast_to(value.reshape(()), shape)
        self.value = np.array(value.reshape(shape), order="C")
        self.layout = a["layout"] or ""

    def infer(self, ws):
        return _operator.Plan(
            [_operator.OutputDesc([self.value.shape] * ws.batch_size, self.value.dtype,
                                     self.layout)])

    def run_cpu(self, ws, plan):
        out = ws.outputs[0]
        dense = out.dense()
        if dense is not None:
            dense[...] = self.value

