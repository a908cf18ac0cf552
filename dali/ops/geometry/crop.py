"""fn.crop: cut a window out of images, volumes and sequences.

The window logic (sizes, anchors, out-of-bounds policies, fill values) is
`dali.ops._crop_window`.  The output keeps the input type unless `dtype` asks for uint8,
float16 or float; that conversion saturates at the target's limits (infinities included) and,
unlike fn.cast, truncates toward zero - what DALI's slice kernels do.  Windows that keep the type
(the common case) are copied in one nogil call of the flip kernel with nothing reversed, after
the fill values of padded windows are set (in one numpy assignment for a dense batch that is
all padded).  Converted windows are cut the same way into a scratch batch and converted by
one numpy expression when the batch is dense and unpadded, else per sample.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types, tensors
from dali._ext.kernels import flip as _flip
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _crop_window
from dali.ops.geometry import _slice_gpu

_CONVERTIBLE_TO = (np.dtype(np.uint8), np.dtype(np.float16), np.dtype(np.float32))


@_registry.register
class Crop(_operator.Operator):
    schema = Schema(
        "crop", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Crops the data to the window given by `crop` (or `crop_h`, `crop_w`, `crop_d`) "
            "placed at the normalized position `crop_pos_x`, `crop_pos_y`, `crop_pos_z`.\n\n"
            "Windows that exceed the input raise an error unless `out_of_bounds_policy` is "
            '"pad" or "trim_to_shape".',
        args=[
            *_crop_window.crop_args(),
            Arg("dtype", T.DATA_TYPE, None,
                doc="Output type: the input type (default), uint8, float16 or float."),
            Arg("output_dtype", T.DATA_TYPE, None, alias_of="dtype"),
        ])

    def setup(self):
        self._memo = _operator.LastPlan()  # the last batch's, when arguments are constant
        _crop_window.check_args(self)

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = tensors.storage_of(tl)
        in_dtype = np.dtype(storage.dtype)
        if in_dtype == np.bool_:
            raise self.error("Not supported input type: bool", TypeError)
        layout = _crop_window.layout_of(self, tl)
        key = None
        if not self.spec.arg_inputs:
            # constant arguments: the windows depend only on the input shapes and type
            key = _operator.shapes_key(storage.shapes, layout, in_dtype)
            if (kept := self._memo.get(key)) is not None:
                return kept
        dtype = self._out_dtype(in_dtype)
        anchors, shapes, padded = _crop_window.window_arrays(self, ws, storage.shapes, layout)
        desc = _operator.OutputDesc(shapes, dtype, layout)
        plan = _operator.Plan([desc], dtype=dtype, channel=layout.find("C"), anchors=anchors,
                              padded=padded, any_padded=bool(padded.any()),
                              flags=np.zeros(anchors.shape, np.uint8))
        return self._memo.keep(key, plan)

    def _out_dtype(self, in_dtype):
        wanted = self.args["dtype"]
        if wanted is None:
            return in_dtype
        try:
            out = _types.dtype_of(T(wanted))
        except TypeError:
            out = None
        if out != in_dtype and out not in _CONVERTIBLE_TO:
            raise self.error(f"Not supported output type: {T(wanted)}; crop converts only to "
                             "uint8, float16 or float.", TypeError)
        return out

    def run_cpu(self, ws, plan):
        if plan.dtype != ws.input_dtype(0):
            self._run_converting(ws, plan)
            return
        src, out, anchors = ws.input_storage(0), ws.outputs[0], plan.anchors
        flags = plan.flags
        if not plan.any_padded:
            _flip.flip_batch(ws.thread_pool, src, out, flags, anchors)
            return
        self._fill(ws, plan, out)
        in_shape = np.asarray(src.shapes, np.int64).reshape(anchors.shape)
        lo = np.clip(anchors, 0, in_shape)
        hi = np.maximum(np.clip(anchors + np.asarray(out.shapes).reshape(anchors.shape), 0,
                                in_shape), lo)
        _flip.flip_batch(ws.thread_pool, src, out, flags, lo, hi - lo, lo - anchors)

    def run_gpu(self, ws, plan):
        """One launch of `slice.cu`: the plan's windows, fill values and conversion."""
        launch = _slice_gpu.for_crop(ws, plan, self.args["fill_values"],
                                     ws.input_storage(0).offsets, ws.outputs[0].offsets)
        _slice_gpu.run(ws, launch)

    def _fill(self, ws, plan, out):
        """Give the padded samples of `out` the fill values (the part inside the input is
        written afterwards): the whole batch at once when it is dense and all padded."""
        fill_values = self.args["fill_values"]
        dense = out.dense() if plan.padded.all() else None
        if dense is not None and dense.size:
            fill = _crop_window.fill_array(ws, 0, fill_values, dense.shape[plan.channel + 1],
                                           plan.dtype)
            shape = [1] * dense.ndim
            shape[plan.channel + 1] = -1 if fill.size > 1 else 1
            dense[...] = fill.reshape(shape)
            return
        samples = out.samples()
        for i in np.flatnonzero(plan.padded).tolist():
            dst = samples[i]
            fill = _crop_window.fill_array(ws, i, fill_values, dst.shape[plan.channel],
                                           plan.dtype)
            shape = [1] * dst.ndim
            shape[plan.channel] = -1 if fill.size > 1 else 1
            dst[...] = fill.reshape(shape)

    def _run_converting(self, ws, plan):
        out = ws.outputs[0]
        dense = out.dense()
        if dense is not None and not plan.any_padded:
            # cut in the input type (one kernel call), then convert the batch in one go
            cut = BatchStorage.allocate(ws.input_dtype(0), out.shapes)
            _flip.flip_batch(ws.thread_pool, ws.input_storage(0), cut, plan.flags,
                             plan.anchors)
            dense[...] = convert_truncating(cut.dense(), plan.dtype)
            return
        fill_values = self.args["fill_values"]
        samples = zip(ws.input_samples(0), ws.output_samples(0), plan.anchors.tolist(),
                      plan.padded.tolist(), strict=True)
        for i, (src, dst, anchor, padded) in enumerate(samples):
            if not padded:
                index = tuple(slice(a, a + e) for a, e in zip(anchor, dst.shape, strict=True))
                dst[...] = convert_truncating(src[index], dst.dtype)
                continue
            fill = _crop_window.fill_array(ws, i, fill_values, dst.shape[plan.channel],
                                           plan.dtype)
            shape = [1] * dst.ndim
            shape[plan.channel] = -1 if fill.size > 1 else 1
            dst[...] = fill.reshape(shape)
            window = _crop_window.Window(tuple(anchor), dst.shape, True)
            region, where = _crop_window.source_region(src, window)
            dst[where] = convert_truncating(region, dst.dtype)


def convert_truncating(x, dtype):
    """`x` as `dtype`, saturating (to the largest finite value for floats) and truncating."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    if dtype.kind == "f":
        limit = np.finfo(dtype).max
        if x.dtype.kind in "iu" and x.dtype.itemsize <= 4 and \
                -limit <= np.iinfo(x.dtype).min and np.iinfo(x.dtype).max <= limit:
            return x.astype(dtype)      # in range, exact in float32: rounded once either way
        if x.dtype.kind == "f":
            return np.clip(x, -limit, limit).astype(dtype)
        return np.clip(x.astype(np.float64), -limit, limit).astype(dtype)
    info = np.iinfo(dtype)
    if x.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            v = np.nan_to_num(np.clip(x, info.min, info.max), nan=0.0)
        return np.trunc(v).astype(dtype)
    src = np.iinfo(x.dtype)
    return np.clip(x, x.dtype.type(max(info.min, src.min)),
                   x.dtype.type(min(info.max, src.max))).astype(dtype)
