"""fn.bb_flip: mirrors bounding boxes (relative coordinates) horizontally and/or vertically.

A box is 4 numbers, `[x, y, w, h]` (`ltrb=False`) or `[l, t, r, b]` (`ltrb=True`), in [0, 1]
image coordinates; a horizontal flip maps x to `1 - (x + w)` (`l, r` to `1 - r, 1 - l`), a
vertical one does the same to y.  Like DALI, xywh boxes go through ltrb, so every size becomes
`(x + w) - x` in float32, flipped or not.  As in DALI a sample is read as a flat run of boxes,
so any shape whose size is a multiple of 4 is accepted and kept.  Samples whose last dimension
is 6 hold 3-D boxes (`[x, y, z, w, h, d]` or `[x, y, z, X, Y, Z]`); their x and y are flipped.

The boxes of the batch lie back to back, so the whole batch is one (boxes, 4) array and a flip
is one NumPy expression over it (per-sample flags are spread over the boxes).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.detection import _boxes, _boxes_gpu

_F32 = np.float32


@_registry.register
class BbFlip(_operator.Operator):
    schema = Schema(
        "bb_flip", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Flips bounding boxes horizontally or vertically (mirror).\n\nThe boxes are "
            "`[x, y, width, height]` (`xywh`) or `[left, top, right, bottom]` (`ltrb`) in "
            "relative image coordinates (0.0-1.0). Samples whose last dimension is 6 hold 3-D "
            "boxes (`[x, y, z, w, h, d]` or `[x, y, z, X, Y, Z]`), flipped in x and y.",
        args=[
            Arg("horizontal", T.INT32, 1, tensor=True, doc="Flip horizontal dimension."),
            Arg("vertical", T.INT32, 0, tensor=True, doc="Flip vertical dimension."),
            Arg("ltrb", T.BOOL, False, doc="True for `ltrb` or False for `xywh`."),
        ])

    def infer(self, ws):
        _boxes.check_float(self, ws)
        storage = ws.input_storage(0)
        shapes = storage.shapes
        if storage.ndim == 2 and (shapes[:, 1] == 4).all():
            size, counts = 4, shapes[:, 0]
        else:
            size = 6 if _is_3d(shapes) else 4
            counts = _boxes.box_counts(ws, storage, size)
        return _operator.Plan([_operator.OutputDesc(shapes, np.dtype(_F32),
                                                    ws.inputs[0].layout(), storage.ndim)],
                              size=size, counts=counts)

    def run_cpu(self, ws, plan):
        src = ws.input_storage(0).contiguous().flat().reshape(-1, plan.size)
        dst = ws.outputs[0].flat().reshape(-1, plan.size)
        ndim, ltrb = plan.size // 2, self.args["ltrb"]
        dst[...] = src
        one = _F32(1)
        for axis in range(ndim):
            flip = _boxes.flag(self, ws, ("horizontal", "vertical", None)[axis], plan.counts)
            lo = src[:, axis]
            if ltrb:
                if np.ndim(flip):
                    dst[:, axis] = np.where(flip, one - src[:, axis + ndim], lo)
                    dst[:, axis + ndim] = np.where(flip, one - lo, src[:, axis + ndim])
                elif flip:
                    np.subtract(one, src[:, axis + ndim], out=dst[:, axis])
                    np.subtract(one, lo, out=dst[:, axis + ndim])
                continue
            # xywh goes through ltrb as in DALI: the size becomes (x + w) - x on every axis.
            hi = lo + src[:, axis + ndim]
            if np.ndim(flip):
                lo, hi = np.where(flip, one - hi, lo), np.where(flip, one - lo, hi)
            elif flip:
                lo, hi = one - hi, one - lo
            dst[:, axis] = lo
            np.subtract(hi, lo, out=dst[:, axis + ndim])

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        launch = _boxes_gpu.bb_flip(plan.size, plan.counts, ws.arg_array("horizontal", np.int32),
                                    ws.arg_array("vertical", np.int32), self.args["ltrb"],
                                    src.offsets, out.offsets)
        if launch is not None:
            ws.gpu.launch(_boxes_gpu.__file__, launch.kernel, launch.grid, launch.block,
                          (src, out, launch.samples, launch.size, launch.ltrb))


def _is_3d(shapes):
    """Whether the samples hold 3-D boxes: 2 or more dimensions, the last one 6 wherever the
    sample is not empty."""
    if shapes.shape[1] < 2:
        return False
    full = shapes[np.prod(shapes, axis=1) > 0]
    return len(full) > 0 and bool((full[:, -1] == 6).all())
