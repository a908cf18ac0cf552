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

from dali import _operator, _registry, _types, tensors
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T


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
        "reshape", inputs=(1, 2), outputs=1, devices=("cpu",),
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

    def _out_dtype(self, in_dtype):
        return np.dtype(in_dtype)

    def infer(self, ws):
        tl = ws.inputs[0]
        in_dtype = np.dtype(tensors.storage_of(tl).dtype)
        self.dtype = self._out_dtype(in_dtype)
        shape_inputs = self._shape_inputs(ws) if len(ws.inputs) > 1 else None
        self.shapes = []
        for i, in_shape in enumerate(tl.shape()):
            requested = None if shape_inputs is None else shape_inputs[i]
            self.shapes.append(self._sample_shape(ws, i, tuple(in_shape), requested,
                                                  in_dtype.itemsize))
        ndim = len(self.shapes[0]) if self.shapes else self._empty_batch_ndim(ws, tl)
        self.ndim = ndim
        if any(len(s) != ndim for s in self.shapes):
            raise self.error("all output samples must have the same number of dimensions, got "
                             f"shapes {self.shapes}")
        if ws.arg_given("layout"):
            layout = self.args["layout"]
            if layout and len(layout) != ndim:
                raise self.error(f"Requested layout '{layout}' is not compatible with a "
                                 f"{ndim}D shape.")
        else:
            layout = tl.layout() if ndim == tl.ndim() else ""
        return _operator.Plan([_operator.OutputDesc(None, self.dtype, layout, ndim)])

    def _empty_batch_ndim(self, ws, tl):
        for name in ("shape", "rel_shape", "src_dims"):
            if ws.arg_given(name) and not ws.is_arg_input(name):
                return len(self.args[name])
        return tl.ndim()

    def _shape_inputs(self, ws):
        out = []
        for i, s in enumerate(ws.input_samples(1)):
            if s.dtype.kind not in "iu":
                raise ws.sample_error(i, f"Shape input must have integral type; got: {s.dtype}",
                                      TypeError)
            if s.ndim > 1:
                raise ws.sample_error(i, "shape input must be a list of 1D tensors, got a "
                                         f"tensor of shape {s.shape}")
            out.append([int(v) for v in s.reshape(-1)])
        return out

    def _sample_shape(self, ws, i, in_shape, requested, in_size):
        out_size = self.dtype.itemsize
        in_bytes = int(np.prod(in_shape, dtype=np.int64)) * in_size
        src_dims = None
        if ws.arg_given("src_dims"):
            src_dims = [int(d) for d in ws.arg("src_dims")[i]]
            for k, d in enumerate(src_dims):
                if not -1 <= d < len(in_shape):
                    raise ws.sample_error(i, f"`src_dims[{k}] == {d}` is out of bounds for a "
                                             f"{len(in_shape)}-D input.", IndexError)
        if requested is None and ws.arg_given("shape"):
            requested = [int(v) for v in ws.arg("shape")[i]]
        if requested is not None:
            shape = list(requested)
            for e in shape:
                if e == 0:
                    raise ws.sample_error(i, f"Extent of 0 is illegal; got: {shape}")
        elif ws.arg_given("rel_shape"):
            shape = self._relative(ws, i, in_shape, src_dims)
        elif src_dims is not None:
            shape = [in_shape[d] if d >= 0 else 1 for d in src_dims]
            shape = self._rescale_innermost(ws, i, shape, in_size, out_size)
        else:
            shape = self._rescale_innermost(ws, i, list(in_shape), in_size, out_size)
        shape = _fill_wildcard(ws, i, shape, in_bytes, out_size)
        if int(np.prod(shape, dtype=np.int64)) * out_size != in_bytes:
            raise ws.sample_error(
                i, f"Input and output samples must occupy the same size in bytes: input shape "
                   f"{in_shape} ({in_bytes} bytes), requested shape {tuple(shape)} "
                   f"({int(np.prod(shape, dtype=np.int64)) * out_size} bytes).")
        return tuple(shape)

    def _relative(self, ws, i, in_shape, src_dims):
        rel = [float(v) for v in ws.arg("rel_shape")[i]]
        if src_dims is not None:
            if len(src_dims) != len(rel):
                raise ws.sample_error(i, f"`rel_shape` has {len(rel)} elements but `src_dims` "
                                         f"has {len(src_dims)}: they must match.")
            base = [in_shape[d] if d >= 0 else 1 for d in src_dims]
        else:
            extra = len(rel) == len(in_shape) + 1 and rel[-1] < 0
            if len(rel) > len(in_shape) and not extra:
                raise ws.sample_error(
                    i, f"`rel_shape` has more elements ({len(rel)}) than there are dimensions "
                       f"in the input ({len(in_shape)}). To add new dimensions, use `src_dims` "
                       "to specify the mapping between input and output dimensions.")
            base = list(in_shape) + [1]
        return [-1 if r < 0 else int(np.floor(b * r + 0.5)) for b, r in zip(base, rel,
                                                                              strict=False)]

    @staticmethod
    def _rescale_innermost(ws, i, shape, in_size, out_size):
        if in_size == out_size:
            return shape
        if not shape or (shape[-1] * in_size) % out_size:
            raise ws.sample_error(
                i, f"The size, in bytes, of the innermost dimension of a sample of shape "
                   f"{tuple(shape)} is not divisible by the size of the requested output type.")
        shape[-1] = shape[-1] * in_size // out_size
        return shape

    def run_cpu(self, ws, plan):
        ws.outputs = [_viewed(ws.input_storage(0), self.dtype, self.shapes, self.ndim)]


def _fill_wildcard(ws, i, shape, in_bytes, out_size):
    negative = [k for k, e in enumerate(shape) if e < 0]
    if len(negative) > 1:
        raise ws.sample_error(i, f"Only one negative extent is allowed; got: {shape}")
    if negative:
        rest = int(np.prod([e for e in shape if e >= 0], dtype=np.int64)) * out_size
        shape[negative[0]] = in_bytes // rest if rest else 0
    return shape


def _viewed(storage, dtype, shapes, ndim):
    """`storage`'s bytes seen as samples of `dtype` and `shapes`, sharing its memory."""
    if not shapes:
        return BatchStorage.allocate(dtype, [], ndim=ndim)
    dense = storage.dense()
    if dense is not None and all(s == shapes[0] for s in shapes):
        flat = dense.reshape(len(shapes), -1).view(np.uint8)
        return BatchStorage.from_dense(flat.view(dtype).reshape((len(shapes), *shapes[0])))
    samples = [np.ascontiguousarray(s).reshape(-1).view(np.uint8).view(dtype).reshape(shape)
               for s, shape in zip(storage.samples(), shapes, strict=True)]
    return BatchStorage.from_samples(samples)


@_registry.register
class Reinterpret(Reshape):
    schema = Schema(
        "reinterpret", inputs=(1, 2), outputs=1, devices=("cpu",),
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
