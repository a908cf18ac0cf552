"""fn.reshape and fn.reinterpret: view the samples with another shape, layout and (reinterpret)
element type, without copying.

The new shape comes from the second input or `shape` (explicit extents), `rel_shape` (extents
relative to the input's, rounded to nearest), `src_dims` (input dimensions to keep, in a new
order; -1 inserts an extent of 1) or - when only the type changes - the input shape with its
innermost extent rescaled by the ratio of the element sizes.  One negative extent in `shape` or
`rel_shape` receives whatever keeps the size in bytes.  The layout is `layout` when given, else
the input's if the number of dimensions is unchanged, else empty (DALI's rule).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.tensor import _views


def _shape_args():
    return [
        Arg("shape", T._INT32_VEC, None, tensor=True,
            doc="The output shape; one extent may be negative to take what keeps the volume."),
        Arg("rel_shape", T._FLOAT_VEC, None, tensor=True,
            doc="The output shape relative to the input shape (`out[i] = in[src_dims[i]] * "
                "rel_shape[i]`, rounded); one extent may be negative to take what keeps the "
                "volume (a negative last extent may add a dimension)."),
        Arg("src_dims", T._INT32_VEC, None, tensor=True,
            doc="Input dimensions to keep, in their new order; -1 inserts an extent of 1."),
        Arg("layout", T.TENSOR_LAYOUT, None,
            doc="The output layout. By default the input layout is kept when the number of "
                "dimensions does not change, and cleared otherwise."),
    ]


@_registry.register
class Reshape(_operator.Operator):
    schema = Schema(
        "reshape", inputs=(1, 2), outputs=1, devices=("cpu", "gpu"), gpu_host_inputs=(1,),
        input_names=["data", "shape_input"],
        doc="Treats the data as if it had a different shape and/or layout; the data are not "
            "copied. The second input, if given, is a 1-D integer shape per sample (like "
            "`shape`).",
        args=_shape_args())

    changes_type = False

    def setup(self):
        given = self.spec.given
        has_input = len(self.spec.node.inputs) > 1 if self.spec.node is not None else False
        if has_input + ("shape" in given) + ("rel_shape" in given) > 1:
            raise self.error("Shape input, `shape` argument and `rel_shape` argument are "
                             "mutually exclusive.", RuntimeError)
        if not (has_input or given & {"shape", "rel_shape", "src_dims", "layout"}
                or (self.changes_type and "dtype" in given)):
            what = "new shape, layout nor type" if self.changes_type else "new shape nor layout"
            raise self.error(f"`{self.spec.display_name}` is no-op: arguments specify neither "
                             f"{what}.", RuntimeError)
        self._memo = _views.ShapeMemo()

    def _out_dtype(self, in_dtype):
        return np.dtype(in_dtype)

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        in_dtype = storage.dtype
        dtype = self._out_dtype(in_dtype)
        in_shapes = storage.shapes
        per_batch = len(ws.inputs) > 1 or any(ws.is_arg_input(a) for a in _SHAPE_ARGS)
        shapes = None if per_batch else self._memo.get(in_shapes, dtype)
        if shapes is None:
            if storage.num_samples == 0:
                shapes = np.zeros((0, self._empty_batch_ndim(ws, tl)), np.int64)
            else:
                shapes = self._out_shapes(ws, in_shapes, in_dtype.itemsize, dtype.itemsize)
            shapes = _views.frozen(shapes)
            if not per_batch:
                self._memo.put(in_shapes, shapes, dtype)
        ndim = shapes.shape[1]
        if ws.arg_given("layout"):
            layout = self.args["layout"]
            if layout and len(layout) != ndim:
                raise self.error(f"Requested layout '{layout}' is not compatible with a "
                                 f"{ndim}D shape.")
        else:
            layout = tl.layout() if ndim == tl.ndim() else ""
        return _operator.Plan([_operator.OutputDesc(None, dtype, layout, ndim)],
                              dtype=dtype, shapes=shapes)

    def run_cpu(self, ws, plan):
        ws.outputs = [_views.viewed(ws.input_storage(0), plan.dtype, plan.shapes)]

    run_gpu = run_cpu           # a view: the same on a device batch (DeviceBatch.viewed_as)

    def _empty_batch_ndim(self, ws, tl):
        for name in _SHAPE_ARGS:
            if ws.arg_given(name) and not ws.is_arg_input(name):
                return len(self.args[name])
        return tl.ndim()

    def _out_shapes(self, ws, in_shapes, in_size, out_size):
        """The output shapes of the whole batch, an int64 array (num_samples, ndim)."""
        n, d = in_shapes.shape
        in_bytes = in_shapes.prod(axis=1) * in_size
        src_dims = _vector_arg(ws, "src_dims", np.int64)
        base = None
        if src_dims is not None:
            _check_src_dims(ws, src_dims, d)
            padded = np.hstack([in_shapes, np.ones((n, 1), np.int64)])
            base = np.take_along_axis(padded, np.where(src_dims < 0, d, src_dims), axis=1)
        requested = _shape_input(ws) if len(ws.inputs) > 1 else \
            _vector_arg(ws, "shape", np.int64)
        if requested is not None:
            shape = np.array(requested, dtype=np.int64)
            zero = (shape == 0).any(axis=1)
            if zero.any():
                i = int(np.flatnonzero(zero)[0])
                raise ws.sample_error(i, f"Extent of 0 is illegal; got: {shape[i].tolist()}")
        elif ws.arg_given("rel_shape"):
            shape = _relative(ws, in_shapes, base, src_dims)
        else:
            shape = _rescale_innermost(ws, np.array(in_shapes if base is None else base),
                                       in_size, out_size)
        shape = _fill_wildcard(ws, shape, in_bytes, out_size)
        out_bytes = shape.prod(axis=1) * out_size
        bad = out_bytes != in_bytes
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ws.sample_error(
                i, f"Input and output samples must occupy the same size in bytes: input shape "
                   f"{tuple(in_shapes[i].tolist())} ({in_bytes[i]} bytes), requested shape "
                   f"{tuple(shape[i].tolist())} ({out_bytes[i]} bytes).")
        return shape


_SHAPE_ARGS = ("shape", "rel_shape", "src_dims")


def _vector_arg(ws, name, dtype):
    """Per-sample values of a vector argument as an array (num_samples, length), or None."""
    if not ws.arg_given(name):
        return None
    if not ws.is_arg_input(name):
        v = np.asarray(ws.spec.args[name], dtype=dtype).reshape(-1)
        return np.broadcast_to(v, (ws.batch_size, len(v)))
    return _stacked(ws, [np.asarray(v, dtype=dtype).reshape(-1) for v in ws.arg(name)])


def _stacked(ws, rows):
    lengths = {len(r) for r in rows}
    if len(lengths) > 1:
        raise ws.op.error("all output samples must have the same number of dimensions, got "
                          f"shapes {[r.tolist() for r in rows]}")
    return np.stack(rows) if rows else None


def _shape_input(ws):
    """The second input (a 1-D integer shape per sample) as an array (num_samples, ndim)."""
    storage = ws.input_storage(1)
    if storage.dtype.kind not in "iu":
        raise ws.sample_error(0, f"Shape input must have integral type; got: {storage.dtype}",
                              TypeError)
    if storage.ndim > 1:
        raise ws.sample_error(0, "shape input must be a list of 1D tensors, got a tensor of "
                                 f"shape {storage.shape_of(0)}")
    dense = storage.dense()
    if dense is not None:
        return dense.reshape(storage.num_samples, -1).astype(np.int64)
    return _stacked(ws, [np.asarray(s, dtype=np.int64).reshape(-1) for s in storage.samples()])


def _check_src_dims(ws, src_dims, ndim):
    bad = (src_dims < -1) | (src_dims >= ndim)
    if bad.any():
        i, k = (int(v) for v in np.argwhere(bad)[0])
        raise ws.sample_error(i, f"`src_dims[{k}] == {src_dims[i, k]}` is out of bounds for a "
                                 f"{ndim}-D input.", IndexError)


def _relative(ws, in_shapes, base, src_dims):
    """Extents relative to the input's (or to the `src_dims` ones), rounded to nearest; -1
    where `rel_shape` is negative."""
    rel = _vector_arg(ws, "rel_shape", np.float64)
    n, d = in_shapes.shape
    k = rel.shape[1]
    if src_dims is not None:
        if src_dims.shape[1] != k:
            raise ws.sample_error(0, f"`rel_shape` has {k} elements but `src_dims` has "
                                     f"{src_dims.shape[1]}: they must match.")
    else:
        extra = (rel[:, -1] < 0) if k == d + 1 else np.zeros(n, bool)
        if k > d and not extra.all():
            i = int(np.flatnonzero(~extra)[0])
            raise ws.sample_error(
                i, f"`rel_shape` has more elements ({k}) than there are dimensions in the "
                   f"input ({d}). To add new dimensions, use `src_dims` to specify the "
                   "mapping between input and output dimensions.")
        base = np.hstack([in_shapes, np.ones((n, 1), np.int64)])[:, :k]
    return np.where(rel < 0, -1, np.floor(base * rel + 0.5)).astype(np.int64)


def _rescale_innermost(ws, shape, in_size, out_size):
    """`shape` with the innermost extents rescaled by the ratio of the element sizes."""
    if in_size == out_size:
        return shape
    bad = np.ones(len(shape), bool) if shape.shape[1] == 0 else \
        (shape[:, -1] * in_size) % out_size != 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ws.sample_error(
            i, f"The size, in bytes, of the innermost dimension of a sample of shape "
               f"{tuple(shape[i].tolist())} is not divisible by the size of the requested "
               "output type.")
    shape[:, -1] = shape[:, -1] * in_size // out_size
    return shape


def _fill_wildcard(ws, shape, in_bytes, out_size):
    """The negative extent of each row (one at most) set to what keeps the size in bytes."""
    negative = shape < 0
    count = negative.sum(axis=1)
    if not count.any():
        return shape
    if (count > 1).any():
        i = int(np.flatnonzero(count > 1)[0])
        raise ws.sample_error(i, f"Only one negative extent is allowed; got: "
                                 f"{shape[i].tolist()}")
    rest = np.where(negative, 1, shape).prod(axis=1) * out_size
    fill = np.where(rest == 0, 0, in_bytes // np.maximum(rest, 1))
    return np.where(negative, fill[:, None], shape)


@_registry.register
class Reinterpret(Reshape):
    schema = Schema(
        "reinterpret", inputs=(1, 2), outputs=1, devices=("cpu", "gpu"), gpu_host_inputs=(1,),
        input_names=["data", "shape_input"],
        doc="Treats the data as if it had a different type, shape and/or layout; the data are "
            "not copied. Without a new shape, a type of another size rescales the innermost "
            "extent.",
        args=[*_shape_args(),
              Arg("dtype", T.DATA_TYPE, None, doc="The output type (by default the input's).")])

    changes_type = True

    def _out_dtype(self, in_dtype):
        wanted = self.args["dtype"]
        if wanted is None:
            return in_dtype
        try:
            return _types.dtype_of(T(wanted))
        except TypeError:
            raise self.error(f"Invalid output type {T(wanted)}.", TypeError) from None
