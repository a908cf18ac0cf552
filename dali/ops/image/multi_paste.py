"""fn.multi_paste: paste regions of input samples into zeroed canvases.

With `in_ids`, output sample i gets the samples `in_ids[i]` of the one input batch; without
it, sample i of every input batch.  Region k has an input anchor (`in_anchors`, or
`in_anchors_rel` times the source extent), a shape (`shapes`, `shapes_rel` times the source
extent, default: to the source's end) and an output anchor (`out_anchors`, or
`out_anchors_rel` times the canvas), all (y, x); relative anchors are truncated and relative
shapes rounded up (in float32).  Regions are pasted in order (a later one covers an earlier
one) by one nogil call of the paste kernel; another output `dtype` is the pasted batch
converted like fn.cast.  On the GPU, `multi_paste.cu` writes every output element from the
last region covering it (0 elsewhere), and another `dtype` is then one launch of `cast.cu`.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types, tensors
from dali._ext.kernels import cast as _cast
from dali._ext.kernels import paste as _kernel
from dali._ext.tensor_storage import BatchStorage
from dali._gpu.batch import DeviceBatch
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _layouts
from dali.ops.image import _multi_paste_gpu
from dali.ops.tensor import _cast_gpu

_PAIRS = (("in_anchors", "in_anchors_rel"), ("out_anchors", "out_anchors_rel"),
          ("shapes", "shapes_rel"))
_NOT_CONVERTIBLE = (np.dtype(np.float16), np.dtype(np.bool_))


def _region_arg(name, kind, what):
    return Arg(name, T._FLOAT_VEC if kind == "rel" else T._INT32_VEC, None, tensor=True,
               doc=f"{what}, one (y, x) row per pasted region (a 2-D tensor per sample)" +
                   (", relative to the extent (0..1)." if kind == "rel" else ", in pixels."))


@_registry.register
class MultiPaste(_operator.Operator):
    schema = Schema(
        "multi_paste", inputs=(1, -1), outputs=1, devices=("cpu", "gpu"),
        doc="Performs multiple pastes from image batches to each of the outputs.\n\n"
            "With `in_ids`, the operator takes one input batch and output sample i gets the "
            "samples `in_ids[i]` of it; without `in_ids`, it takes several batches and "
            "output sample i gets sample i of each. The canvas is `output_size`, or the "
            "input shape when all input samples have the same shape. Uncovered pixels are 0.",
        args=[
            Arg("in_ids", T._INT32_VEC, None, tensor=True,
                doc="Indices of the input samples pasted into each output sample."),
            _region_arg("in_anchors", "abs", "Top-left corner of the source region"),
            _region_arg("in_anchors_rel", "rel", "Top-left corner of the source region"),
            _region_arg("shapes", "abs", "Shape of the pasted region"),
            _region_arg("shapes_rel", "rel", "Shape of the pasted region"),
            _region_arg("out_anchors", "abs", "Top-left corner of the region in the output"),
            _region_arg("out_anchors_rel", "rel",
                        "Top-left corner of the region in the output"),
            Arg("output_size", T._INT32_VEC, None, tensor=True,
                doc="(H, W) of the output canvas; needed unless all input samples have one "
                    "shape."),
            Arg("dtype", T.DATA_TYPE, None,
                doc="Output type (default: the input's); converted as fn.cast does. float16 "
                    "is not supported."),
        ])

    def setup(self):
        self._memo = _operator.LastPlan()  # the last batch's, when arguments are constant
        given = self.spec.given
        for a, b in _PAIRS:
            if a in given and b in given:
                raise self.error(f"`{a}` and `{b}` are mutually exclusive", RuntimeError)

    def infer(self, ws):
        k = len(ws.inputs)
        if ws.arg_given("in_ids") and k != 1:
            raise self.error("If the `in_ids` is specified, the operator accepts exactly one "
                             f"positional input batch. Got: {k} inputs.", RuntimeError)
        storages = [tensors.storage_of(tl) for tl in ws.inputs]
        layout = _layouts.input_layout(self, ws.inputs[0], ("HWC",), {3: "HWC"})
        in_dtype = np.dtype(storages[0].dtype)
        if any(np.dtype(s.dtype) != in_dtype for s in storages):
            raise self.error("All the input batches must have the same type", TypeError)
        dtype = in_dtype if self.args["dtype"] is None else _types.dtype_of(T(self.args["dtype"]))
        if dtype != in_dtype and (dtype in _NOT_CONVERTIBLE or in_dtype in _NOT_CONVERTIBLE):
            raise self.error(f"Not supported conversion from {in_dtype} to {dtype}", TypeError)
        key = None
        if not self.spec.arg_inputs:
            # constant arguments: the plan depends only on the input shapes and types
            key = (layout, in_dtype, ws.batch_size,
                   *((s.shapes.shape, s.shapes.tobytes()) for s in storages))
            if (kept := self._memo.get(key)) is not None:
                return kept
        plan = self._plan(ws, storages, layout, in_dtype, dtype)
        return self._memo.keep(key, plan)

    def _plan(self, ws, storages, layout, in_dtype, dtype):
        k = len(storages)
        shapes = [np.asarray(s.shapes, np.int64).reshape(-1, 3) for s in storages]
        n = ws.batch_size
        canvas = self._canvas(ws, shapes, n)
        if ws.arg_given("in_ids"):
            ids = [np.asarray(v, np.int64).reshape(-1) for v in ws.arg("in_ids")]
            counts = np.array([len(v) for v in ids], np.int64)
            sample = np.concatenate(ids) if ids else np.zeros(0, np.int64)
            source = np.zeros(len(sample), np.int64)
            bad = np.flatnonzero((sample < 0) | (sample >= len(shapes[0])))
            if len(bad):
                i = int(np.searchsorted(np.cumsum(counts), bad[0], side="right"))
                raise ws.sample_error(i, "The `in_idx` must be in range [0, .., batch_size - "
                                         f"1]. Got in_idx: {sample[bad[0]]}. Input batch size "
                                         f"is: {len(shapes[0])}.", RuntimeError)
        else:
            counts = np.full(n, k, np.int64)
            sample = np.repeat(np.arange(n, dtype=np.int64), k)
            source = np.tile(np.arange(k, dtype=np.int64), n)
        starts = np.concatenate([[0], np.cumsum(counts)])
        owner = np.repeat(np.arange(n, dtype=np.int64), counts)
        src = np.zeros((len(sample), 3), np.int64)
        for kk in range(k):
            mine = source == kk
            src[mine] = shapes[kk][sample[mine]]
        regions = self._regions(ws, counts, starts, owner, src[:, :2], canvas)
        channels = src[:, 2] if len(src) else shapes[0][:, 2]
        if len(channels) and (channels != channels[0]).any():
            raise self.error("All the input samples must have the same number of channels",
                             RuntimeError)
        c = int(channels[0]) if len(channels) else 0
        out = np.concatenate([canvas, np.full((n, 1), c, np.int64)], axis=1)
        table = np.concatenate([source[:, None], sample[:, None], regions], axis=1)
        for a in (out, table, starts):
            a.flags.writeable = False
        return _operator.Plan([_operator.OutputDesc(out, dtype, layout)], regions=table,
                              starts=starts, in_dtype=in_dtype)

    def _canvas(self, ws, shapes, n):
        if ws.arg_given("output_size"):
            rows = [np.asarray(v, np.int64).reshape(-1) for v in ws.arg("output_size")]
            if any(len(r) != 2 for r in rows):
                raise self.error("`output_size` must have 2 values (H, W)", RuntimeError)
            return np.broadcast_to(np.array(rows, np.int64).reshape(-1, 2), (n, 2))
        every = np.concatenate(shapes)[:, :2]
        different = np.flatnonzero((every != every[0]).any(axis=1)) if len(every) else []
        if len(different):
            a, b = every[0], every[different[0]]
            raise self.error("If the `output_size` is not specified, all the input samples "
                             f"must have the same shape. Got samples of different shapes: "
                             f"{a[0]} x {a[1]} and {b[0]} x {b[1]}.", RuntimeError)
        return np.broadcast_to(every[:1], (n, 2)) if len(every) else np.zeros((n, 2), np.int64)

    def _regions(self, ws, counts, starts, owner, src, canvas):
        """(in_y, in_x, out_y, out_x, h, w) of every region (sources of extents `src`, of
        output samples `owner`)."""
        m = len(owner)
        in_at = self._rows(ws, _PAIRS[0], counts, src, np.trunc)
        out_at = self._rows(ws, _PAIRS[1], counts, canvas[owner], np.trunc)
        size = self._rows(ws, _PAIRS[2], counts, src, np.ceil)
        in_at = np.zeros((m, 2), np.int64) if in_at is None else in_at
        out_at = np.zeros((m, 2), np.int64) if out_at is None else out_at
        size = src - in_at if size is None else size
        checks = (((in_at < 0) | (size < 0) | (in_at + size > src)).any(axis=1),
                  ((out_at < 0) | (out_at + size > canvas[owner])).any(axis=1))
        for what, bad, anchor, extent in (("input sample", checks[0], in_at, src),
                                          ("output bounds", checks[1], out_at, canvas[owner])):
            if bad.any():
                r = int(np.flatnonzero(bad)[0])
                i = int(owner[r])
                side = "input" if what == "input sample" else "output"
                raise ws.sample_error(i, f"The pasted region must be within {what}. Got {side} "
                                         f"anchor: {_dims(anchor[r])}, pasted region shape: "
                                         f"{_dims(size[r])}, {side} shape: "
                                         f"{_dims(extent[r])}, for the region at index "
                                         f"{r - starts[i]}, pasted into output sample at "
                                         f"index {i}.", RuntimeError)
        return np.concatenate([in_at, out_at, size], axis=1)

    @staticmethod
    def _rows(ws, names, counts, extent, rounding):
        """Argument `names[0]` (pixels) or `names[1]` (relative to `extent`) of every region
        as (m, 2) int64 rows, or None when neither is given."""
        absolute, relative = names
        name = absolute if ws.arg_given(absolute) else relative
        if not ws.arg_given(name):
            return None
        dtype = np.int64 if name == absolute else np.float32
        values = [np.asarray(v, dtype).reshape(-1) for v in ws.arg(name)]
        sizes = np.array([v.size for v in values], np.int64)
        bad = np.flatnonzero(sizes != 2 * counts)
        if len(bad):
            i = int(bad[0])
            raise ws.sample_error(i, f"`{name}` must have one (y, x) row per pasted region: "
                                     f"expected {counts[i]} x 2 values, got {sizes[i]}",
                                  RuntimeError)
        v = np.concatenate(values).reshape(-1, 2) if values else np.zeros((0, 2), dtype)
        if name == relative:
            v = rounding(v * extent.astype(np.float32)).astype(np.int64)
        return v

    def run_cpu(self, ws, plan):
        srcs = [ws.input_storage(k) for k in range(len(ws.inputs))]
        out = ws.outputs[0]
        if plan.in_dtype == np.dtype(out.dtype):
            _kernel.paste_batch(ws.thread_pool, srcs, out, plan.regions, plan.starts)
            return
        pasted = BatchStorage.allocate(plan.in_dtype, out.shapes)
        _kernel.paste_batch(ws.thread_pool, srcs, pasted, plan.regions, plan.starts)
        _cast.cast_batch(ws.thread_pool, pasted, out)

    def run_gpu(self, ws, plan):
        srcs = [ws.input_storage(k) for k in range(len(ws.inputs))]
        out = ws.outputs[0]
        pasted = out if plan.in_dtype == np.dtype(out.dtype) else \
            DeviceBatch.empty(ws.gpu, plan.in_dtype, out.shapes)
        launch = _multi_paste_gpu.launch(plan.regions, plan.starts, out.shapes,
                                         [s.shapes for s in srcs], [s.offsets for s in srcs],
                                         plan.in_dtype.itemsize, pasted.offsets)
        ws.gpu.launch(_multi_paste_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (np.array([s.ptr for s in srcs], np.uint64), pasted, launch.samples,
                       launch.regions))
        if pasted is not out:
            cast = _cast_gpu.launch(pasted.nbytes // plan.in_dtype.itemsize, plan.in_dtype,
                                    out.dtype)
            ws.gpu.launch(_cast_gpu.__file__, cast.kernel, cast.grid, cast.block,
                          (pasted, out, cast.count))


def _dims(v):
    return " x ".join(str(int(e)) for e in v)
