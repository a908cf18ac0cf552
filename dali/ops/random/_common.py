"""What the random distribution operators share: the schema's optional `shape_like` input and
`shape`/`dtype` arguments, per-sample output shapes, and conversion of the double-precision
draws to the output type.

Output shape of sample i: the shape of sample i of the `shape_like` input when one is given,
else the `shape` argument (a constant or one shape per sample), else a scalar `()`.

Integer outputs are converted like DALI's saturating cast: rounded half away from zero, then
clamped to the type's range.

On the GPU (uniform, normal, coin_flip, as in DALI) `draw` launches `random.cu`, which gives
the CPU's numbers for the same seed (`_random_gpu`).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _types
from dali._ext.kernels import random as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.random import _random_gpu

INTEGER_TYPES = (T.UINT8, T.UINT16, T.UINT32, T.UINT64, T.INT8, T.INT16, T.INT32, T.INT64)
NUMERIC_TYPES = (*INTEGER_TYPES, T.FLOAT, T.FLOAT64)
_SHAPE_DOC = ("Each output sample is a scalar unless `shape` or the optional `shape_like` input "
              "(whose samples' shapes are used; their data is ignored) says otherwise.")


def schema(name, default, supported, doc, args, gpu=False):
    """The Schema of a distribution: an optional `shape_like` input; the distribution's `args`,
    then `shape` and `dtype` (`default` when not given, one of `supported`); with a GPU backend
    when `gpu`."""
    return Schema(name, inputs=(0, 1), outputs=1, devices=("cpu", "gpu") if gpu else ("cpu",),
                  random=True, input_names=["shape_like"], doc=doc + "\n\n" + _SHAPE_DOC,
                  args=[*args, shape_arg(), dtype_arg(default, supported)])


class Distribution(_operator.Operator):
    """A distribution operator: samples shaped by `sample_shapes`, of type `dtype`
    (`default_type` when not given, one of `supported`)."""

    default_type: T
    supported: tuple

    def infer(self, ws):
        dtype = output_type(self, self.default_type, self.supported)
        return _operator.Plan([output_desc(self, ws, dtype)])


def shape_arg():
    return Arg("shape", T._INT32_VEC, None, tensor=True,
               doc="Shape of each output sample (a constant, or one per sample as a 1-D "
                   "integer input). Without it, and without a `shape_like` input, every "
                   "sample is a scalar. Cannot be given together with `shape_like`.")


def dtype_arg(default, supported):
    names = ", ".join(_type_name(t) for t in supported)
    return Arg("dtype", T.DATA_TYPE, None,
               doc=f"Output data type (default {_type_name(default)}). Supported: {names}.")


def _type_name(t):
    return np.dtype(_types.to_numpy_type(t)).name


def output_type(op, default, supported):
    """The operator's output DALIDataType (raises for an unsupported one)."""
    dtype = op.args["dtype"]
    dtype = default if dtype is None else _types.DALIDataType(dtype)
    if dtype not in supported:
        names = ", ".join(_type_name(t) for t in supported)
        shown = _type_name(dtype) if _types.is_numeric(dtype) else str(dtype)
        raise op.error(f"data type {shown} is not supported; supported types are: {names}",
                       TypeError)
    return dtype


def sample_shapes(op, ws, like_input=0):
    """Per-sample output shapes: the `shape_like` input's (its read-only (n, ndim) int64 shape
    array, no tuples made), the `shape` argument's, or ()."""
    given = ws.arg_given("shape")
    if len(ws.inputs) > like_input:
        if given:
            raise op.error("the argument `shape` cannot be given together with a shape-like "
                           "input")
        return ws.input_storage(like_input).shapes
    if not given:
        return [()] * ws.batch_size
    if ws.is_arg_input("shape"):
        dtype = ws.arg_inputs["shape"].dtype
        if not _types.is_integer(dtype):
            raise op.error(f"the argument input `shape` must be of an integer type, got {dtype}",
                           TypeError)
    if not ws.is_arg_input("shape"):
        shape = tuple(int(x) for x in ws.spec.args["shape"])
        if any(x < 0 for x in shape):
            raise op.error(f"the argument `shape` has a negative extent: {list(shape)}")
        return [shape] * ws.batch_size
    shapes = [tuple(int(x) for x in s) for s in ws.arg("shape")]
    for i, s in enumerate(shapes):
        if any(x < 0 for x in s):
            raise ws.sample_error(i, f"the argument `shape` has a negative extent: {list(s)}")
        if len(s) != len(shapes[0]):
            raise ws.sample_error(
                i, f"the argument `shape` must have the same number of dimensions in every "
                   f"sample: sample 0 has {len(shapes[0])}, sample {i} has {len(s)}")
    return shapes


def shape_ndim(ws, like_input=0):
    """Number of dimensions of the shapes `sample_shapes` gives (known for an empty batch)."""
    if len(ws.inputs) > like_input:
        return ws.inputs[like_input].ndim()
    if not ws.arg_given("shape"):
        return 0
    if ws.is_arg_input("shape"):
        tl = ws.arg_inputs["shape"]
        return int(np.asarray(tl[0]).size) if len(tl) else 0
    return len(ws.spec.args["shape"])


def output_desc(op, ws, dtype):
    """The OutputDesc of an operator whose samples have the `sample_shapes` shapes."""
    return _operator.OutputDesc(sample_shapes(op, ws), _types.dtype_of(dtype),
                                ndim=shape_ndim(ws))


def counts(storage):
    """Number of elements of each sample of a BatchStorage."""
    return np.prod(storage.shapes, axis=1, dtype=np.int64).reshape(-1)


def per_element(values, n):
    """Per-sample values repeated for each of the sample's `n[i]` elements."""
    return np.repeat(np.asarray(values, dtype=np.float64), n)


def convert(x, dtype):
    """Doubles to the numpy `dtype`: floats are cast; integers rounded half away from zero and
    clamped to the type's range."""
    dtype = np.dtype(dtype)
    x = np.asarray(x, dtype=np.float64)
    if dtype.kind == "f":
        return x.astype(dtype)
    if dtype.kind == "b":
        return x != 0
    info = np.iinfo(dtype)
    r = np.trunc(x + np.copysign(0.5, x))
    # float64 cannot hold the 64-bit maxima exactly; the largest double below them can.
    hi = np.float64(info.max)
    if int(hi) > info.max:
        hi = np.nextafter(hi, 0.0)
    return np.clip(r, float(info.min), hi).astype(dtype)


def fill(ws, flat, n, dtype, k=0):
    """Write the concatenated per-sample values `flat` (`n[i]` each) into output k."""
    values = convert(flat, dtype)
    dense = ws.outputs[k].dense()
    if dense is not None:            # samples of one shape, back to back
        dense[...] = values.reshape(dense.shape)
        return
    start = 0
    for dst, count in zip(ws.output_samples(k), n.tolist(), strict=True):
        dst[...] = values[start:start + count].reshape(dst.shape)
        start += count


def draw(ws, mode, a, b=None, end=None, k=0, stream=0, table=None):
    """Fill output k with the `mode` draws of random_draws.h (per-sample parameters `a`, `b`,
    `end`), drawn, transformed and converted in one nogil call on the pool; on the GPU in one
    launch of `random.cu` (where mode may also be "pick", from the float64 `table`)."""
    if ws.spec.device != "gpu":
        _kernel.draw_batch(ws.thread_pool, ws.outputs[k], ws.random_key(), ws.sample_ids,
                           stream, mode, a, b, end)
        return
    out = ws.outputs[k]
    if ws.batch_size == 0:
        return
    launch = _random_gpu.draw(mode, out.shapes, out.dtype, ws.random_key(), ws.sample_ids,
                              stream, a, b, end, out.offsets)
    ws.gpu.launch(_random_gpu.__file__, launch.kernel, launch.grid, launch.block,
                  launch.arguments(out, np.uint64(0) if table is None else table))


def float_arg(ws, name, positive=False):
    """Per-sample values of a float argument as a float64 array; raises for NaN/inf (and for
    <= 0 when `positive`) naming the first bad sample."""
    values = ws.arg_array(name, np.float64)
    bad = ~np.isfinite(values)
    if positive:
        bad |= values <= 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        need = "a positive finite number" if positive else "a finite number"
        raise ws.sample_error(i, f"the argument `{name}` must be {need}, got {values[i]}")
    return values
