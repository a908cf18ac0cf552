"""fn.bbox_rotate: moves bounding boxes as fn.rotate turns their image.

A box's corners, in pixels about the image's centre, are rotated by `angle` degrees
(counter-clockwise on screen, as fn.rotate) and placed about the centre of the output canvas:
the canvas fn.rotate makes (`_rotation.rotated_size`), the input's (`keep_size`) or `size`.
The box is the rotated corners' bounding box (`mode="expand"`); "fixed" keeps the box's own
width and height (swapped when the angle is nearer a quarter or three-quarter turn) about the
same centre, "halfway" the mean of both.  Boxes are then clipped to the canvas, and removed
(with their labels) when less than `remove_threshold` of their area is left.

Computed in float64 (one nogil loop over the batch's boxes, _ext/kernels/boxes.h), then
rounded to float32: results are within about 1e-7 of DALI's, which computes in float32.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import boxes
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _rotation
from dali.ops.detection import _boxes

_F32 = np.float32
_MODES = ("expand", "halfway", "fixed")


def _num_outputs(args, num_inputs=1):
    return num_inputs


@_registry.register
class BboxRotate(_operator.Operator):
    schema = Schema(
        "bbox_rotate", inputs=(1, 2), outputs=_num_outputs, devices=("cpu",),
        class_name="BBoxRotate", input_names=["bboxes", "labels"],
        doc="Transforms bounding boxes so that the boxes remain in the same place in the image "
            "after the image is rotated (rotate the boxes before the image: the original image "
            "shape is needed). Boxes that land outside the image are removed, with their "
            "`labels` (optional second input, [N] or [N, 1]), when the fraction of the box "
            "left after clipping is less than `remove_threshold`.\n\nBy default boxes are "
            "expanded to enclose the rotated box; `mode` can keep their size (\"fixed\") or "
            "take the mean of both (\"halfway\").",
        args=[
            Arg("angle", T.FLOAT, REQUIRED, tensor=True,
                doc="Rotation angle in degrees (counter-clockwise, as fn.rotate)."),
            Arg("input_shape", T._INT32_VEC, REQUIRED, tensor=True,
                doc="Shape of the original image the boxes belong to, in the order given by "
                    "`shape_layout`."),
            Arg("bbox_layout", T.TENSOR_LAYOUT, "xyXY",
                doc='Format of the boxes: "xyXY" or "xyWH".'),
            Arg("bbox_normalized", T.BOOL, True,
                doc="Boxes are in relative [0, 1] coordinates (else in pixels; the output "
                    "then is in pixels of the output canvas)."),
            Arg("keep_size", T.BOOL, False,
                doc="The output canvas keeps the input's size (as fn.rotate's `keep_size`)."),
            Arg("mode", T.STRING, "expand",
                doc='"expand": enclose the rotated box; "fixed": keep the box\'s size; '
                    '"halfway": between the two.'),
            Arg("remove_threshold", T.FLOAT, 0.1,
                doc="Boxes with less than this fraction of their area left inside the canvas "
                    "are removed (0: never)."),
            Arg("shape_layout", T.TENSOR_LAYOUT, "HW",
                doc='Meaning of the `input_shape` entries ("HW", "HWC", "WH", ...): H and W '
                    'are looked up in it.'),
            Arg("size", T._FLOAT_VEC, [], tensor=True,
                doc="The output canvas size (H, W) given to the matching fn.rotate."),
        ])

    def setup(self):
        a, name = self.args, self.spec.display_name
        if a["mode"] not in _MODES:
            raise RuntimeError(f"{name}: Unknown mode: {a['mode']}. Supported modes are: "
                               f"expand, halfway, fixed.")
        if a["bbox_layout"] not in ("xyXY", "xyWH"):
            raise RuntimeError(f"{name}: Unknown bbox_layout: {a['bbox_layout']}. Supported "
                               f"layouts are: xyWH, xyXY.")
        layout = a["shape_layout"]
        if "H" not in layout or "W" not in layout:
            raise RuntimeError(f'{name}: `shape_layout` "{layout}" must contain "H" and "W"')
        self.hw = (layout.index("H"), layout.index("W"))
        self._memo = None       # (batch size, `_geometry`) while no argument is an input

    def infer(self, ws):
        counts = _boxes.four_column_boxes(self, ws)
        labels = None
        if len(ws.inputs) > 1:
            labels = _boxes.labels(self, ws, 1, counts)
        descs = [_operator.OutputDesc(None, np.dtype(_F32), ws.inputs[0].layout(), 2)]
        if labels is not None:
            descs.append(_operator.OutputDesc(None, np.dtype(np.int32), ws.inputs[1].layout(),
                                              labels[0].ndim))
        if self.spec.arg_inputs:
            geometry = self._geometry(ws)
        else:       # constant arguments: the same geometry for every batch of a size
            if self._memo is None or self._memo[0] != ws.batch_size:
                self._memo = ws.batch_size, self._geometry(ws)
            geometry = self._memo[1]
        return _operator.Plan(descs, counts=counts, labels=labels, geometry=geometry)

    def _geometry(self, ws):
        """What `boxes.rotate_boxes` takes of the images: (n,) cosines and sines of the
        angles, (n, 2) float64 image and canvas sizes, and whether each angle is nearer a
        quarter or three-quarter turn."""
        in_hw, out_hw, angles = self._sizes(ws)
        rad = np.radians(angles)
        turns = np.floor(np.abs(np.remainder(angles + 180.0, 360.0) - 180.0) / 90.0 + 0.5)
        geometry = np.cos(rad), np.sin(rad), in_hw, out_hw, turns % 2 == 1
        for a in geometry:
            a.flags.writeable = False
        return geometry

    def _sizes(self, ws):
        """(in_hw, out_hw, angles): (n, 2) float64 image and canvas sizes, (n,) angles."""
        n = ws.batch_size
        angles = ws.arg_array("angle", np.float64)
        bad = np.flatnonzero(~np.isfinite(angles))
        if len(bad):
            raise ws.sample_error(int(bad[0]), f"`angle` must be finite, got {angles[bad[0]]}")
        rows = ws.arg_rows("input_shape")
        if rows is None or rows.shape[1] <= max(self.hw):
            raise self.error(f'`input_shape` must have an entry for each letter of '
                             f'`shape_layout` "{self.args["shape_layout"]}"', RuntimeError)
        in_hw = rows[:, list(self.hw)].astype(np.int64)
        if (in_hw <= 0).any():
            raise self.error(f"`input_shape` must be positive, got "
                             f"{rows[(in_hw <= 0).any(1)][0].tolist()}", RuntimeError)
        size = ws.arg("size")
        given = np.array([len(s) > 0 for s in size])
        if given.any():
            if not given.all() or any(len(s) != 2 for s in size):
                raise self.error("`size` must have 2 values (H, W) for every sample",
                                 RuntimeError)
            out_hw = np.round(np.stack(size).astype(np.float64))
        elif self.args["keep_size"]:
            out_hw = in_hw
        else:
            out_hw = _rotation.rotated_sizes(in_hw, angles) if n else in_hw
        return in_hw.astype(np.float64), np.asarray(out_hw, np.float64), angles

    def run_cpu(self, ws, plan):
        counts = plan.counts
        storage = ws.input_storage(0)
        # per-sample boxes (an external_source's) joined in one call, not a copy a sample
        flat = storage.flat() if storage.is_contiguous else \
            np.concatenate(storage.samples()) if len(counts) else np.zeros((0, 4), _F32)
        a = self.args
        boxes_out, keep = boxes.rotate_boxes(
            flat.reshape(-1, 4), counts, *plan.geometry, a["bbox_layout"] == "xyWH",
            a["bbox_normalized"], a["mode"], a["remove_threshold"])
        kept = counts if keep.all() else \
            np.bincount(np.repeat(np.arange(len(counts)), counts)[keep], minlength=len(counts))
        ws.outputs[0] = _boxes.kept_rows(boxes_out, keep, kept, 2)
        if plan.labels is not None:
            st, rows = plan.labels
            ws.outputs[1] = _boxes.kept_rows(rows, keep, kept, st.ndim)
