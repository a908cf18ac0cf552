"""fn.ssd_random_crop (deprecated in DALI, use fn.random_bbox_crop): the SSD paper's random
crop of an image with its boxes and labels.

Per sample, as in DALI: one of seven outcomes is drawn: the whole image, or a window whose
IoU with every box is at least 0.1, 0.3, 0.5, 0.7, 0.9 or 0 (any); for a threshold up to
`num_attempts` windows are tried (width and height in [0.3, 1] of the image's, aspect ratio
w/h in [0.5, 2]) and a window is kept when it reaches the threshold and the centre of at least
one box lies in it; otherwise another outcome is drawn.  The image is cut to the window's
pixels (its relative corners rounded to whole pixels), the boxes whose centre is in the window
are clamped to it and expressed relative to it, with their labels.

The search is the one of fn.random_bbox_crop (_ext/kernels/boxes.h, per-sample counter-based
draws: the width is drawn, the height follows from the drawn aspect ratio; DALI draws both
sides, so its windows are distributed differently); the pixels are copied in one nogil call on
the pool (the crop kernel of fn.crop, _ext/kernels/flip.pyx).
"""

from __future__ import annotations

import warnings

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import boxes
from dali._ext.kernels.flip import flip_batch
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.detection import _boxes

_F32 = np.float32
_THRESHOLDS = [0.1, 0.3, 0.5, 0.7, 0.9, 0.0]    # then "no crop", the seventh outcome
_ASPECT = [[0.5, 2.0]] * 3
_MAX_ATTEMPTS = 100_000


@_registry.register
class SsdRandomCrop(_operator.Operator):
    schema = Schema(
        "ssd_random_crop", inputs=3, outputs=3, devices=("cpu",), random=True,
        class_name="SSDRandomCrop",
        doc="Deprecated: use `random_bbox_crop`.\n\nPerforms a random crop with bounding "
            "boxes where Intersection Over Union (IoU) meets a randomly selected threshold "
            "between 0-1 (0.1, 0.3, 0.5, 0.7, 0.9, any, or no crop at all). When the IoU falls "
            "below the threshold, a new random crop is generated up to `num_attempts`. Inputs: "
            "an image (HWC or HW), `[l, t, r, b]` float32 boxes and int32 labels; outputs: the "
            "cropped image, the boxes kept (relative to the crop) and their labels. Random "
            "values differ from DALI's.",
        args=[Arg("num_attempts", T.INT32, 1, doc="Number of attempts.")])

    @classmethod
    def check_call(cls, args, name):
        warnings.warn("`dali.fn.ssd_random_crop` is now deprecated. Use "
                      "`dali.fn.random_bbox_crop` instead.", DeprecationWarning, stacklevel=4)

    def infer(self, ws):
        img = ws.input_storage(0)
        if img.ndim not in (2, 3):
            raise self.error(f"the image must be HWC or HW, got {img.ndim} dimensions",
                             RuntimeError)
        counts = _boxes.four_column_boxes(self, ws, 1)
        lab = _boxes.labels(self, ws, 2, counts)
        return _operator.Plan([
            _operator.OutputDesc(None, ws.input_dtype(0), ws.inputs[0].layout(), img.ndim),
            _operator.OutputDesc(None, np.dtype(_F32), ws.inputs[1].layout(), 2),
            _operator.OutputDesc(None, np.dtype(np.int32), ws.inputs[2].layout(), lab[0].ndim)],
            counts=counts, labels=lab)

    def run_cpu(self, ws, plan):
        counts = plan.counts
        src = ws.input_storage(1).contiguous().flat().reshape(-1, 4)
        lo, hi = src[:, :2], src[:, 2:]
        _boxes.check_inside(ws, src, lo, hi, counts)
        attempts = int(self.args["num_attempts"])
        crop_lo, crop_hi, _, status, _ = boxes.crop_search(
            ws.thread_pool, lo, hi, counts, ws.sample_ids, ws.random_key(), 0,
            _THRESHOLDS if attempts > 0 else [], True, max(attempts, 1), _MAX_ATTEMPTS, False,
            True, True, -1.0, 0.3, 1.0, _ASPECT)
        if (status == 3).any():
            raise ws.sample_error(int(np.flatnonzero(status == 3)[0]),
                                  f"no valid crop window in {_MAX_ATTEMPTS} attempts",
                                  RuntimeError)
        nocrop = status == 1
        self._crop_images(ws, crop_lo, crop_hi, nocrop)
        new_lo, new_hi, keep, kept = _boxes.crop(lo, hi, counts, crop_lo, crop_hi, nocrop)
        out = np.concatenate([new_lo, new_hi], 1).astype(_F32)
        out[np.repeat(nocrop, counts)] = src[np.repeat(nocrop, counts)]
        ws.outputs[1] = _boxes.kept_rows(out, keep, kept, 2)
        lab, rows = plan.labels
        ws.outputs[2] = _boxes.kept_rows(rows, keep, kept, lab.ndim)

    @staticmethod
    def _crop_images(ws, crop_lo, crop_hi, nocrop):
        img = ws.input_storage(0).contiguous()
        shapes = np.asarray(img.shapes)
        hw = shapes[:, :2][:, ::-1].astype(np.float64)            # (W, H): x, y order
        start = np.clip(np.rint(crop_lo * hw), 0, hw)
        end = np.clip(np.rint(crop_hi * hw), 0, hw)
        size = np.maximum(end - start, np.minimum(1, hw))
        start = np.minimum(start, hw - size)
        start[nocrop], size[nocrop] = 0, hw[nocrop]
        anchors = np.zeros_like(shapes)
        anchors[:, :2] = start[:, ::-1]
        out_shapes = shapes.copy()
        out_shapes[:, :2] = size[:, ::-1]
        dst = BatchStorage.allocate(img.dtype, out_shapes, ndim=img.ndim)
        flip_batch(ws.thread_pool, img, dst, np.zeros_like(shapes, np.uint8), anchors,
                   out_shapes)
        ws.outputs[0] = dst
