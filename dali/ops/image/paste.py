"""fn.paste: put each uint8 HWC image on a larger canvas filled with `fill_value`.

The canvas extent is `int(max(extent * ratio, min_canvas_size))` (in float32, per sample),
the image's top-left corner `int(paste * (canvas - extent))` with `paste_y` / `paste_x` in
[0, 1].  The canvas is one nogil call of the slice kernel: a window starting at minus the
paste position, with the fill value per channel outside the image.  On the GPU the same window
is one launch of the window-copy kernel `slice.cu` (`_slice_gpu`).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, tensors
from dali._ext.kernels import slice as _kernel
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _layouts
from dali.ops.geometry import _slice_gpu


@_registry.register
class Paste(_operator.Operator):
    schema = Schema(
        "paste", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Pastes the input images on a larger canvas, where the canvas size is equal to "
            "``input size * ratio`` (at least `min_canvas_size`). Only uint8 HWC images are "
            "supported.",
        args=[
            Arg("ratio", T.FLOAT, REQUIRED, tensor=True,
                doc="Ratio of canvas size to input size. Must be >= 1."),
            Arg("fill_value", T._INT32_VEC, REQUIRED,
                doc="The colour of the canvas: one value, or `n_channels` values."),
            Arg("paste_x", T.FLOAT, 0.5, tensor=True,
                doc="Horizontal position of the paste in (0.0 - 1.0) image coordinates."),
            Arg("paste_y", T.FLOAT, 0.5, tensor=True,
                doc="Vertical position of the paste in (0.0 - 1.0) image coordinates."),
            Arg("min_canvas_size", T.FLOAT, 0.0, tensor=True,
                doc="Enforces the minimum paste canvas dimension after scaling the input size "
                    "by the ratio."),
            Arg("n_channels", T.INT32, 3, doc="Number of channels in the image."),
        ])

    def setup(self):
        self._memo = _operator.LastPlan()  # the last batch's, when arguments are constant
        n = self.args["n_channels"]
        fill = np.asarray(self.args["fill_value"], np.int64).reshape(-1)
        if fill.size not in (1, n):
            raise self.error(f'Argument "fill_value" expects either a single value or a list '
                             f"of {n} elements. {fill.size} given.", RuntimeError)
        self._fill = np.broadcast_to(fill, n).astype(np.uint8).reshape(1, n)   # C cast: wraps

    def infer(self, ws):
        tl = ws.inputs[0]
        layout = _layouts.input_layout(self, tl, ("HWC",), {3: "HWC"})
        storage = tensors.storage_of(tl)
        if np.dtype(storage.dtype) != np.uint8:
            raise self.error(f"Not supported input type: {np.dtype(storage.dtype)}; paste "
                             "takes uint8 images.", TypeError)
        key = None
        if not self.spec.arg_inputs:
            # constant arguments: the plan depends only on the input shapes
            key = _operator.shapes_key(storage.shapes, layout)
            if (kept := self._memo.get(key)) is not None:
                return kept
        plan = self._plan(ws, storage, layout)
        return self._memo.keep(key, plan)

    def _plan(self, ws, storage, layout):
        in_shape = np.asarray(storage.shapes, np.int64).reshape(-1, 3)
        n, channels = len(in_shape), self.args["n_channels"]
        bad = np.flatnonzero(in_shape[:, 2] != channels)
        if len(bad):
            i = int(bad[0])
            raise ws.sample_error(i, f"the image has {in_shape[i, 2]} channels, n_channels is "
                                     f"{channels}", RuntimeError)
        ratio = ws.arg_array("ratio", np.float32)
        lo = np.flatnonzero(ratio < 1)
        if len(lo):
            raise ws.sample_error(int(lo[0]), "ratio of less than 1 is not supported",
                                  RuntimeError)
        minimum = ws.arg_array("min_canvas_size", np.float32)
        out, anchors = in_shape.copy(), np.zeros_like(in_shape)
        for d, name in ((0, "paste_y"), (1, "paste_x")):
            p = ws.arg_array(name, np.float32)
            outside = np.flatnonzero(~((p >= 0) & (p <= 1)))
            if len(outside):
                raise ws.sample_error(int(outside[0]), f"{name} must be in range [0, 1]",
                                      RuntimeError)
            extent = in_shape[:, d].astype(np.float32)
            out[:, d] = np.maximum(extent * ratio, minimum).astype(np.int64)
            anchors[:, d] = -(p * (out[:, d] - in_shape[:, d]).astype(np.float32)) \
                .astype(np.int64)
        out.flags.writeable = anchors.flags.writeable = False
        return _operator.Plan([_operator.OutputDesc(out, np.uint8, layout)], anchors=anchors,
                              fill=np.broadcast_to(self._fill, (n, channels)))

    def run_cpu(self, ws, plan):
        _kernel.slice_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0],
                            plan.anchors, _kernel.CONSTANT, plan.fill, 2)

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        if src.num_samples == 0:
            return
        _slice_gpu.run(ws, _slice_gpu.launch(
            src.shapes, plan.outputs[0].shapes, np.uint8, np.uint8, anchors=plan.anchors,
            fill=plan.fill, channel_axis=2, src_offsets=src.offsets, dst_offsets=out.offsets))
