"""fn.box_encoder: SSD encoding of bounding boxes and labels against a fixed set of anchors.

Like DALI: IoU is computed in float32 between every ltrb box of a sample and every anchor; each
box claims the anchor it overlaps most (the last one on ties), and every other anchor takes the
box it overlaps most (the last one on ties) when that IoU exceeds `criteria`.  Outputs, one row
per anchor: the matched box as (cx, cy, w, h) - or, with `offset`, the normalised offsets
`((c_box - c_anchor) / wh_anchor - mean) / std` and `(log(wh_box / wh_anchor) - mean) / std`
computed on the (cx, cy, w, h) of boxes and anchors multiplied by `scale` - and its label;
unmatched anchors get the anchor as (cx, cy, w, h) (zeros with `offset`) and label 0.

The anchors are checked and converted once, at build; each batch is one nogil call on the
thread pool, one work item per sample (_ext/kernels/boxes.h).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import boxes
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.detection import _boxes, _boxes_gpu

_F32 = np.float32


@_registry.register
class BoxEncoder(_operator.Operator):
    schema = Schema(
        "box_encoder", inputs=2, outputs=2, devices=("cpu", "gpu"),
        doc="Encodes the input bounding boxes and labels using a set of default boxes "
            "(anchors) passed as an argument, following \"SSD: Single Shot MultiBox "
            "Detector\".\n\nInputs: `BBoxes` (float32, (N, 4) `[l, t, r, b]` per sample) and "
            "`Labels` (int32, one per box). Outputs: `EncodedBBoxes` (float32, (M, 4) for M "
            "anchors: the matched box, or the anchor, as `[cx, cy, w, h]`, or offsets with "
            "`offset`) and `EncodedLabels` (int32, (M,): the matched box's label, 0 for "
            "background).",
        args=[
            Arg("anchors", T._FLOAT_VEC, REQUIRED,
                doc="Anchors to be used for encoding, as a list of floats in the `ltrb` "
                    "format (4 per anchor)."),
            Arg("criteria", T.FLOAT, 0.5,
                doc="Threshold IoU for matching bounding boxes with anchors, in [0, 1]."),
            Arg("means", T._FLOAT_VEC, [0.0, 0.0, 0.0, 0.0],
                doc="[x y w h] mean values for normalization."),
            Arg("offset", T.BOOL, False,
                doc="Returns normalized offsets `((encoded_bboxes*scale - anchors*scale) - "
                    "mean) / stds` in EncodedBBoxes, using `stds`, `means` and `scale`."),
            Arg("scale", T.FLOAT, 1.0,
                doc="Rescales the box and anchor values before the offset is calculated "
                    "(for example, to return to the absolute values)."),
            Arg("stds", T._FLOAT_VEC, [1.0, 1.0, 1.0, 1.0],
                doc="[x y w h] standard deviations for offset normalization (non-zero)."),
        ])

    def setup(self):
        a, name = self.args, self.spec.display_name
        anchors = np.asarray(a["anchors"], _F32)
        if anchors.size % 4:
            raise RuntimeError(f"{name}: Anchors size must be divisible by 4, actual value = "
                               f"{anchors.size}")
        if not 0 <= a["criteria"] <= 1:
            raise RuntimeError(f"{name}: Expected criteria in [0, 1], actual value = "
                               f"{a['criteria']:f}")
        for arg in ("means", "stds"):
            if len(a[arg]) != 4:
                raise RuntimeError(f"{name}: {arg} size must be a list of 4 values.")
        if 0 in a["stds"]:
            raise RuntimeError(f"{name}: stds values must be != 0.")
        self.anchors = anchors.reshape(-1, 4)
        lo, hi = self.anchors[:, :2], self.anchors[:, 2:]
        centers = np.concatenate([_F32(0.5) * (lo + hi), hi - lo], 1)
        if a["offset"]:
            centers *= _F32(a["scale"])
        self.centers = np.ascontiguousarray(centers)

    def infer(self, ws):
        counts = _boxes.four_column_boxes(self, ws)
        if ws.input_dtype(1) != np.int32:
            raise self.error(f"labels must be int32, got {ws.input_dtype(1)}", RuntimeError)
        lab_st = ws.input_storage(1)
        lsizes = np.prod(lab_st.shapes, axis=1) if lab_st.ndim else np.ones(len(counts),
                                                                           np.int64)
        bad = np.flatnonzero(lsizes < counts)
        if len(bad):
            i = int(bad[0])
            raise ws.sample_error(i, f"the sample has {int(counts[i])} boxes but "
                                     f"{int(lsizes[i])} labels", RuntimeError)
        m, n = len(self.anchors), len(counts)
        return _operator.Plan([
            _operator.OutputDesc([(m, 4)] * n, np.dtype(_F32), "", 2),
            _operator.OutputDesc([(m,)] * n, np.dtype(np.int32), "", 1)])

    def run_cpu(self, ws, plan):
        a = self.args
        boxes.encode_batch(ws.thread_pool, ws.input_storage(0).contiguous(),
                           ws.input_storage(1).contiguous(), self.anchors, self.centers,
                           a["criteria"], a["offset"], a["scale"], a["means"], a["stds"],
                           ws.outputs[0], ws.outputs[1])

    def run_gpu(self, ws, plan):
        a = self.args
        boxes_in, labels_in = ws.input_storage(0), ws.input_storage(1)
        out_boxes, out_labels = ws.outputs
        label_sizes = (np.prod(labels_in.shapes, axis=1) if labels_in.ndim else
                       np.ones(labels_in.num_samples, np.int64))
        enc = _boxes_gpu.box_encoder(
            boxes_in.shapes[:, 0], label_sizes, len(self.anchors), a["criteria"], a["offset"],
            a["scale"], a["means"], a["stds"], (boxes_in.offsets, labels_in.offsets,
                                                out_boxes.offsets, out_labels.offsets))
        if enc is None:
            return
        forced = ws.gpu.alloc(8 * enc.forced)
        ws.gpu.keep(forced)
        ws.gpu.launch(_boxes_gpu.__file__, enc.force.kernel, enc.force.grid, enc.force.block,
                      (boxes_in, self.anchors, forced, enc.samples, enc.anchors))
        ws.gpu.launch(_boxes_gpu.__file__, enc.encode.kernel, enc.encode.grid, enc.encode.block,
                      (boxes_in, labels_in, self.anchors, self.centers, forced, out_boxes,
                       out_labels, enc.samples, enc.params, enc.anchors, enc.offset))
