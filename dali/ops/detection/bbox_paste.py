"""fn.bbox_paste: moves bounding boxes as their image is pasted onto a larger canvas.

With `s = 1 / ratio` and the paste offset `o = paste * ((ratio - 1) * s)` (float32, in DALI's
order of operations), a start coordinate `x` becomes `x * s + o`, an end coordinate likewise
(`ltrb`), a size `w` becomes `w * s` (`xywh`).  As in DALI, a sample is read as a flat run of
4-number boxes: any shape whose size is a multiple of 4 is accepted and kept.

The boxes of the batch lie back to back, so the whole batch is one (boxes, 4) array and the
transform is one NumPy expression per column (per-sample arguments spread over the boxes).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.detection import _boxes

_F32 = np.float32


@_registry.register
class BboxPaste(_operator.Operator):
    schema = Schema(
        "bbox_paste", inputs=1, outputs=1, devices=("cpu",), class_name="BBoxPaste",
        doc="Transforms bounding boxes so that the boxes remain in the same place in the image "
            "after the image is pasted on a larger canvas.\n\nCorners become "
            "`(x / ratio + paste_x', y / ratio + paste_y')` and sizes (`xywh`) "
            "`(w / ratio, h / ratio)`, where `paste_x' = paste_x * (ratio - 1) / ratio` (and "
            "likewise for y). `(0, 0)` aligns the image to the top-left of the canvas, "
            "`(1, 1)` to the bottom-right.",
        args=[
            Arg("ratio", T.FLOAT, REQUIRED, tensor=True,
                doc="Ratio of the canvas size to the input size; must be positive (DALI "
                    "documents at least 1)."),
            Arg("paste_x", T.FLOAT, 0.5, tensor=True,
                doc="Horizontal position of the paste in image coordinates (0.0 - 1.0)."),
            Arg("paste_y", T.FLOAT, 0.5, tensor=True,
                doc="Vertical position of the paste in image coordinates (0.0 - 1.0)."),
            Arg("ltrb", T.BOOL, False, doc="True for `ltrb` or False for `xywh`."),
        ])

    def infer(self, ws):
        _boxes.check_float(self, ws)
        storage = ws.input_storage(0)
        shapes = storage.shapes
        if storage.ndim == 2 and (shapes[:, 1] == 4).all():
            counts = shapes[:, 0]
        else:
            counts = _boxes.box_counts(ws, storage, 4)
        if ws.is_arg_input("ratio"):
            ratio = ws.arg_array("ratio", _F32)
            bad = np.flatnonzero(~(ratio > 0))
        else:
            ratio = _F32(self.args["ratio"])
            bad = [] if ratio > 0 else [0]
        if len(bad):
            value = float(ratio[bad[0]] if np.ndim(ratio) else ratio)
            raise ws.sample_error(int(bad[0]), f"`ratio` must be positive, got {value}")
        return _operator.Plan([_operator.OutputDesc(shapes, np.dtype(_F32),
                                                    ws.inputs[0].layout(), storage.ndim)],
                              ratio=ratio, counts=counts)

    def run_cpu(self, ws, plan):
        src = ws.input_storage(0).contiguous().flat().reshape(-1, 4)
        dst = ws.outputs[0].flat().reshape(-1, 4)
        scale = _F32(1) / plan.ratio
        margin = (plan.ratio - _F32(1)) * scale
        if np.ndim(scale):
            margin = _boxes.per_box(margin, plan.counts)
            scale = _boxes.per_box(scale, plan.counts)
        for axis, name in ((0, "paste_x"), (1, "paste_y")):
            offset = _boxes.per_box_arg(self, ws, name, plan.counts) * margin
            np.multiply(src[:, axis], scale, out=dst[:, axis])
            dst[:, axis] += offset
            np.multiply(src[:, axis + 2], scale, out=dst[:, axis + 2])
            if self.args["ltrb"]:
                dst[:, axis + 2] += offset
