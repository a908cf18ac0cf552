"""fn.pad: pad samples at their ends with `fill_value`, along `axes` / `axis_names` (default:
every axis), to the largest extent of the batch, to a per-sample `shape`, and/or to a multiple
of `align`.

For each padded axis, the output extent is the requested one (`shape`, where positive; else
the batch's largest extent along that axis), at least the sample's own, rounded up to a
multiple of `align`.  The fill value is converted to the sample type by a plain C cast
(`dali.ops._c_cast`).
The copy is one nogil call of the slice kernel (window at the origin, constant border).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, tensors
from dali._ext.kernels import slice as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _c_cast, _slice_window
from dali.ops.geometry import _slice_gpu


@_registry.register
class Pad(_operator.Operator):
    schema = Schema(
        "pad", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Pads all samples with `fill_value` in the specified axes to match the biggest "
            "extent in the batch for those axes, or to the minimum shape given by `shape`; "
            "with `align`, the padded extents are rounded up to its multiples. Padding is "
            "added at the end of each axis.",
        args=[
            Arg("fill_value", T.FLOAT, 0.0, tensor=True, doc="The value to pad the batch with."),
            Arg("axes", T._INT32_VEC, None, tensor=True,
                doc="Indices of the axes to pad (negative: from the back); excludes "
                    "`axis_names`. Neither given (or empty): every axis."),
            Arg("axis_names", T.TENSOR_LAYOUT, None,
                doc="Names of the axes to pad, by layout; excludes `axes`."),
            Arg("align", T._INT32_VEC, None, tensor=True,
                doc="Padded extents are rounded up to multiples of these values: one for all "
                    "padded axes, or one per axis."),
            Arg("shape", T._INT32_VEC, None, tensor=True,
                doc="Output extents of the padded axes; -1 (or any value not positive) pads "
                    "to the batch's largest extent, a value smaller than the sample's extent "
                    "only aligns."),
        ])

    def setup(self):
        self._memo = _operator.LastPlan()  # the last batch's, when arguments are constant
        if "axes" in self.spec.given and "axis_names" in self.spec.given:
            raise self.error('"axes" and "axis_names" are mutually exclusive', RuntimeError)

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = tensors.storage_of(tl)
        ndim, layout = storage.ndim, tl.layout() or ""
        if ndim == 0:
            raise self.error("Unsupported number of dimensions 0", RuntimeError)
        key = None
        if not self.spec.arg_inputs:
            # constant arguments: the plan depends only on the input shapes and type
            key = _operator.shapes_key(storage.shapes, layout, storage.dtype)
            if (kept := self._memo.get(key)) is not None:
                return kept
        plan = self._plan(ws, storage, ndim, layout)
        return self._memo.keep(key, plan)

    def _plan(self, ws, storage, ndim, layout):
        in_shape = np.asarray(storage.shapes, np.int64).reshape(-1, ndim)
        n = len(in_shape)
        largest = in_shape.max(axis=0, initial=0)
        out = in_shape.copy()
        rows = None
        if not ws.is_arg_input("axes"):
            axes = self._axes(ws, 0, layout, ndim)
            rows = self._rows(ws, None, len(axes))
        if rows is not None:
            out[:, axes] = _extents(ws, in_shape[:, axes], largest[axes], *rows)
        else:
            for i in range(n):
                axes = self._axes(ws, i, layout, ndim)
                rows = self._rows(ws, i, len(axes))
                out[i, axes] = _extents(ws, in_shape[i:i + 1, axes], largest[axes], *rows,
                                        first=i)[0]
        dtype = np.dtype(storage.dtype)
        fill = _c_cast.c_cast(ws.arg_array("fill_value", np.float32), dtype).reshape(n, 1)
        out.flags.writeable = fill.flags.writeable = False
        return _operator.Plan([_operator.OutputDesc(out, dtype, layout)], fill=fill)

    def _axes(self, ws, i, layout, ndim):
        names = self.args["axis_names"]
        if names:
            return _slice_window.named_axes(ws, i, names, layout)
        axes = ws.arg("axes")[i] if ws.arg_given("axes") else ()
        if np.size(axes) == 0:
            return np.arange(ndim)
        return _slice_window.axis_indices(ws, i, axes, ndim)

    @staticmethod
    def _rows(ws, i, k):
        """(shape, align) as int64 arrays (samples, k) (align may have one column), None
        where not given: of all samples (i None; None when an argument input is ragged) or of
        sample i."""
        out = []
        for name in ("shape", "align"):
            if not ws.arg_given(name):
                out.append(None)
                continue
            if i is None:
                v = ws.arg_rows(name, np.int64)
                if v is None:
                    return None
            else:
                v = np.asarray(ws.arg(name)[i], np.int64).reshape(1, -1)
            if v.shape[1] != k and not (name == "align" and v.shape[1] == 1):
                raise ws.sample_error(i or 0, f'Argument "{name}" expected shape {k} but got '
                                              f"{v.shape[1]} values, which can't be "
                                              "interpreted as the expected shape.",
                                      RuntimeError)
            out.append(v)
        return out

    def run_cpu(self, ws, plan):
        src = ws.input_storage(0)
        _kernel.slice_batch(ws.thread_pool, src, ws.outputs[0],
                            np.zeros((src.num_samples, src.ndim), np.int64), _kernel.CONSTANT,
                            plan.fill)

    def run_gpu(self, ws, plan):
        """One launch of `slice.cu`: the window at the origin, the fill value around."""
        launch = _slice_gpu.for_pad(ws, plan, ws.input_storage(0).offsets,
                                    ws.outputs[0].offsets)
        _slice_gpu.run(ws, launch)


def _extents(ws, extent, largest, shape, align, first=0):
    """Output extents (n, k) of samples of `extent` (n, k) along their padded axes."""
    want = np.broadcast_to(largest, extent.shape)
    if shape is not None:
        want = np.where(shape > 0, shape, want)
    want = np.maximum(want, extent)
    if align is not None:
        bad = np.flatnonzero((align <= 0).any(axis=1))
        if len(bad):
            raise ws.sample_error(first + int(bad[0]),
                                  "Values of `align` argument must be positive.", RuntimeError)
        want = -(-want // align) * align
    return want
