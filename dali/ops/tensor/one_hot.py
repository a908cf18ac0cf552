"""fn.one_hot: class indices to one-hot vectors along a new axis.

The new axis of extent `num_classes` goes in at `axis` (-1, the default: after the last one);
element c of a vector is `on_value` where the index, truncated toward zero, is c, and
`off_value` elsewhere (an index outside [0, num_classes) gives all `off_value`).  The layout is
the input's with `axis_name` inserted, or empty without it.

`on_value` and `off_value` are float arguments converted to `dtype` as DALI's C++ cast does on
x86: to floating types by rounding, to integer types by truncation through a 32-bit integer
(64-bit for uint32, int64, uint64), out-of-range values becoming that integer's minimum, then
wrapping to the type (on_value=300 gives 44 as uint8).  The encoding is the nogil `onehot`
kernel, given the two values as bit patterns.
"""

from __future__ import annotations

import math

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import onehot as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.tensor import _one_hot_gpu, _views

_INPUT_TYPES = {np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                      np.uint32, np.int64, np.uint64, np.float32, np.float64)}
_WIDE = {np.dtype(np.uint32), np.dtype(np.int64), np.dtype(np.uint64)}


def _bits(value, dtype):
    """`value` (a float argument) converted to `dtype` as DALI does, as an unsigned integer of
    the same bytes."""
    v = float(np.float32(value))
    if dtype.kind == "f":
        converted = np.array(np.float32(v), dtype)
    else:
        limit = 2 ** 63 if dtype in _WIDE else 2 ** 31
        t = math.trunc(v) if math.isfinite(v) else -limit
        converted = np.array(t if -limit <= t < limit else -limit, np.int64).astype(dtype)
    return int(converted.view(f"u{dtype.itemsize}"))


@_registry.register
class OneHot(_operator.Operator):
    schema = Schema(
        "one_hot", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Encodes class indices as one-hot vectors along a new axis of extent "
            "`num_classes`: `on_value` at the index (truncated toward zero), `off_value` "
            "elsewhere; indices outside [0, num_classes) give only `off_value`.",
        args=[Arg("num_classes", T.INT32, 0, doc="Number of classes: the extent of the new "
                  "axis."),
              Arg("axis", T.INT32, -1,
                  doc="Where the new axis is inserted, in [-1, ndim]; -1 appends it."),
              Arg("axis_name", T.STRING, None,
                  doc="Single-character name of the new axis in the output layout (the input "
                      "must then have a full layout unless it is a scalar). Without it the "
                      "output has no layout."),
              Arg("dtype", T.DATA_TYPE, T.FLOAT,
                  doc="Output type: any numeric type but BOOL and FLOAT16."),
              Arg("on_value", T.FLOAT, 1.0, doc="Value at the index of the class."),
              Arg("off_value", T.FLOAT, 0.0, doc="Value everywhere else.")])

    def setup(self):
        dtype = T(self.args["dtype"])
        if not _types.is_numeric(dtype) or dtype in (T.BOOL, T.FLOAT16):
            raise self.error(f"Unsupported output type: {_types.type_name(dtype)}",
                             RuntimeError)
        name = self.args["axis_name"]
        if name is not None and len(name) != 1:
            raise self.error("Unsupported axis_name value. It must be a single character, got "
                             f'"{name}" instead.', RuntimeError)
        if self.args["num_classes"] < 0:
            raise self.error("Input size less than zero not supported.", RuntimeError)
        self.dtype = _types.dtype_of(dtype)
        self.on = _bits(self.args["on_value"], self.dtype)
        self.off = _bits(self.args["off_value"], self.dtype)
        self._memo = _views.ShapeMemo()

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        if storage.dtype not in _INPUT_TYPES:
            name = _types.type_name(_types.dali_type_of(storage.dtype))
            raise self.error(f"Unsupported input type: {name}", RuntimeError)
        ndim = storage.ndim
        axis = self.args["axis"]
        if not -1 <= axis <= ndim:
            raise self.error(f"Provided axis is outside of allowed range, got: {axis}, expected "
                             f"to be in range: [-1, {ndim}].", RuntimeError)
        axis = ndim if axis == -1 else axis
        layout = self._layout(tl.layout() or "", ndim, axis)
        shapes = storage.shapes
        found = self._memo.get(shapes, (axis,))
        if found is None:
            classes = self.args["num_classes"]
            outer = np.prod(shapes[:, :axis], axis=1, dtype=np.int64)
            inner = np.prod(shapes[:, axis:], axis=1, dtype=np.int64)
            out = _views.frozen(np.insert(shapes, axis, classes, axis=1))
            found = self._memo.put(shapes, (out, outer, inner), (axis,))
        out, outer, inner = found
        return _operator.Plan([_operator.OutputDesc(out, self.dtype, layout, ndim + 1)],
                              outer=outer, inner=inner)

    def _layout(self, layout, ndim, axis):
        name = self.args["axis_name"]
        if name is None:
            return ""
        if ndim and len(layout) != ndim:
            raise self.error(f"Input layout mismatch - expected input layout to be of size "
                             f'{ndim} but instead got "{layout}", which is of size '
                             f"{len(layout)}.", RuntimeError)
        return layout[:axis] + name + layout[axis:]

    def run_cpu(self, ws, plan):
        _kernel.one_hot_batch(ws.thread_pool, ws.input_storage(0).contiguous(), ws.outputs[0],
                              plan.outer, plan.inner, self.args["num_classes"], self.on,
                              self.off)

    def run_gpu(self, ws, plan):
        src, dst = ws.input_storage(0), ws.outputs[0]
        launch = _one_hot_gpu.launch(plan.outer, plan.inner, self.args["num_classes"], self.on,
                                     self.off, src.dtype, dst.dtype.itemsize, src.offsets,
                                     dst.offsets)
        ws.gpu.launch(_one_hot_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, dst, launch.samples, launch.classes, launch.on, launch.off))
