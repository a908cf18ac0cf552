"""fn.random_bbox_crop: a random crop window that keeps the bounding boxes meaningful, and the
boxes (and labels) inside it.

Per sample, like DALI: an outcome is drawn uniformly among the `thresholds` (plus "no crop"
when `allow_no_crop`); "no crop" returns the whole image and every box unchanged.  For a
threshold, up to `num_attempts` windows are drawn.  A window's relative x size is uniform in
`scaling`; the y (and z) size follows from an aspect ratio x/y (x/z) drawn uniformly in
`aspect_ratio` (in pixels when `input_shape` is given), and the window is rejected when a size
leaves `scaling` (or, in 3-D, y/z leaves its range).  With `crop_shape` the size is fixed (in
pixels of `input_shape`).  The anchor is uniform over the positions that keep the window in the
image (whole pixels with `crop_shape`, where a window larger than the image overhangs it).  A
window is valid when the overlap of every box (`all_boxes_above_threshold`, else of at least
one) with it, IoU or the fraction of the box inside it (`threshold_type`), reaches the
threshold, and at least one box survives the pruning: a box survives when its centre lies in
the window or, with `bbox_prune_threshold`, when that fraction of its area lies in it.  Then a
new outcome is drawn, and so on, until `total_num_attempts` windows were tried; then the best
window so far (highest smallest, or largest, overlap) is used, with a warning unless `quiet`.

The surviving boxes are clamped to the window and expressed relative to it, in the input's
layout; labels and (with `output_bbox_indices`) the boxes' indices follow them.

Random numbers come from the counter-based streams: each sample draws from its own Philox
stream (one number for each outcome, then 2 * ndim per window tried), so a sample's crop depends
only on the seed and its index, not on threads or batch splits (DALI's values differ: its
generator is another).  The search runs in C (_ext/kernels/boxes.h), one sample per work item
on the thread pool, stopping at the first box that rules a window out; clamping, remapping and
filtering the boxes, labels and indices are NumPy expressions over the whole batch.
"""

from __future__ import annotations

import warnings

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import boxes
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.detection import _boxes

_F32 = np.float32
_MAX_ATTEMPTS = 100_000   # per sample when `total_num_attempts` is -1 (DALI loops forever)
_NO_CROP, _BEST, _GAVE_UP = 1, 2, 3   # outcomes of the search (boxes.h) besides "found"


def _num_outputs(args, num_inputs=1):
    return 3 + (num_inputs == 2) + bool(args.get("output_bbox_indices", False))


@_registry.register
class RandomBboxCrop(_operator.Operator):
    schema = Schema(
        "random_bbox_crop", inputs=(1, 2), outputs=_num_outputs, devices=("cpu",),
        class_name="RandomBBoxCrop", input_names=["boxes", "labels"], random=True,
        doc="Applies a prospective random crop to an image coordinate space while keeping the "
            "bounding boxes, and optionally labels, consistent.\n\nInputs: `boxes` (a 2-D "
            "float32 tensor of relative coordinates per sample, in `bbox_layout`) and optional "
            "int32 `labels` (one per box). Outputs: `anchor` and `shape` of the crop (x, y(, z) "
            "order; relative, or in pixels with `crop_shape`), the boxes that survive the crop "
            "relative to it, their labels (with the labels input) and their indices (with "
            "`output_bbox_indices`).\n\nA window candidate is valid when the boxes' overlap "
            "with it (`threshold_type`) reaches the threshold drawn from `thresholds` and at "
            "least one box survives the pruning. Random values differ from DALI's.",
        args=[
            Arg("all_boxes_above_threshold", T.BOOL, True,
                doc="If True, every box must overlap the window as `thresholds` asks; if "
                    "False, one box is enough."),
            Arg("allow_no_crop", T.BOOL, True,
                doc="If True, not cropping is one more possible outcome, as if it were one "
                    "more `thresholds` value."),
            Arg("aspect_ratio", T._FLOAT_VEC, [1.0, 1.0],
                doc="Valid range of the window's aspect ratio: `[min, max]` (x/y), or for 3-D "
                    "boxes `[min_xy, max_xy, min_xz, max_xz, min_yz, max_yz]`. Relative to the "
                    "image unless `input_shape` is given. Incompatible with `crop_shape`."),
            Arg("bbox_layout", T.TENSOR_LAYOUT, "",
                doc='Meaning of the box coordinates: "x", "y", "z" (start), "X", "Y", "Z" '
                    '(end), "W", "H", "D" (size). Empty: "xyXY" or "xyzXYZ" (or "xyWH" / '
                    '"xyzWHD" with `ltrb=False`).'),
            Arg("bbox_prune_threshold", T.FLOAT, None,
                doc="If set, a box is kept when at least this fraction of its area lies in the "
                    "window (0.0: any part); if not set, when its centre lies in the window."),
            Arg("crop_shape", T._INT32_VEC, None, tensor=True,
                doc="Fixed window size (in pixels, order given by `shape_layout`); needs "
                    "`input_shape`. The anchor is then drawn in whole pixels."),
            Arg("input_shape", T._INT32_VEC, None, tensor=True,
                doc="Shape of the original image (order given by `shape_layout`)."),
            Arg("ltrb", T.BOOL, True,
                deprecated="`ltrb` is deprecated. Please use `bbox_layout` to specify the "
                           'format of the bounding box: `ltrb=True` is `bbox_layout="xyXY"`, '
                           '`ltrb=False` is `bbox_layout="xyWH"`.',
                doc="True: boxes are `[l, t, r, b]`, False: `[l, t, w, h]` (deprecated: use "
                    "`bbox_layout`)."),
            Arg("num_attempts", T.INT32, 1,
                doc="Windows tried for each threshold drawn before another is drawn."),
            Arg("output_bbox_indices", T.BOOL, False,
                doc="Adds an output with the original indices of the boxes kept."),
            Arg("quiet", T.BOOL, False,
                doc="Suppresses the warning given when no valid window was found within "
                    "`total_num_attempts` and the best candidate is used."),
            Arg("scaling", T._FLOAT_VEC, [1.0, 1.0],
                doc="Range `[min, max]` of the window's size relative to the image, per axis. "
                    "Incompatible with `crop_shape`."),
            Arg("shape_layout", T.TENSOR_LAYOUT, "",
                doc='Meaning of the `crop_shape` and `input_shape` entries: "W", "H", "D". '
                    'Empty: "WH" or "WHD".'),
            Arg("threshold_type", T.STRING, "iou",
                doc='Meaning of `thresholds`: "iou" (intersection over union of box and '
                    'window) or "overlap" (fraction of the box\'s area in the window).'),
            Arg("thresholds", T._FLOAT_VEC, [0.0],
                doc="Minimum overlaps (in [0, 1]) to choose from, one per outcome."),
            Arg("total_num_attempts", T.INT32, -1,
                doc="Windows tried in all before the best candidate is taken; -1: no limit "
                    f"(here: an error after {_MAX_ATTEMPTS} windows, where DALI loops "
                    "forever)."),
        ])

    def setup(self):
        a, given = self.args, self.spec.given
        name = self.spec.display_name
        self.thresholds = np.asarray(a["thresholds"], np.float64)
        bad = self.thresholds[(self.thresholds < 0) | (self.thresholds > 1)]
        if len(bad):
            raise RuntimeError(f"{name}: Threshold value must be within the range [0.0, 1.0]. "
                               f"Received: {bad[0]}")
        if a["threshold_type"] not in ("iou", "overlap"):
            raise RuntimeError(f'{name}: Not supported `threshold_type` value: '
                               f'"{a["threshold_type"]}". Supported values are: "iou", '
                               f'"overlap".')
        if a["num_attempts"] <= 0:
            raise RuntimeError(f"{name}: Minimum number of attempts must be greater than zero")
        self.fixed = "crop_shape" in given
        if self.fixed:
            if "input_shape" not in given:
                raise RuntimeError(f"{name}: `input_shape` must be provided when providing "
                                   f"`crop_shape`")
            for arg in ("scaling", "aspect_ratio"):
                if arg in given:
                    raise RuntimeError(f"{name}: `{arg}` is incompatible with providing the "
                                       f"crop shape explicitly")
        scaling = a["scaling"]
        if len(scaling) != 2 or not 0 <= scaling[0] <= scaling[1]:
            raise RuntimeError(f"{name}: `scaling` range must be positive and min <= max. "
                               f"Got: {scaling}")
        ratio = a["aspect_ratio"]
        if len(ratio) not in (2, 6):
            raise RuntimeError(f"{name}: `aspect_ratio` range argument should have 2 elements, "
                               f"or 6 elements in case of 3D bounding boxes. Got {len(ratio)} "
                               f"elements")
        pairs = np.asarray(ratio, np.float64).reshape(-1, 2)
        if ((pairs[:, 0] < 0) | (pairs[:, 0] > pairs[:, 1])).any():
            raise RuntimeError(f"{name}: `aspect_ratio` ranges must be non-negative with "
                               f"min <= max. Got: {ratio}")
        self.aspect = pairs
        self.aspect_rows = np.repeat(pairs, 3 // len(pairs), axis=0)   # x/y, x/z, y/z
        prune = a["bbox_prune_threshold"]
        if prune is not None and not 0 <= prune <= 1:
            raise RuntimeError(f"{name}: `bbox_prune_threshold` must be within [0.0, 1.0]. "
                               f"Received: {prune}")
        # Outcomes: the thresholds, then "no crop" (never with a fixed crop shape, as in DALI).
        self.no_crop = bool(a["allow_no_crop"]) and not self.fixed
        # ndim -> the box layout's columns, and ndim -> the order of `shape_layout`: checked
        # on the first batch of each ndim (they depend on constant arguments only)
        self._cols, self._orders = {}, {}

    # -- per batch ----------------------------------------------------------------------------
    def infer(self, ws):
        _boxes.check_float(self, ws)
        storage = ws.input_storage(0)
        shapes = storage.shapes
        if storage.ndim != 2:
            raise self.error(f"Unexpected number of dimensions for bounding boxes input: "
                             f"{storage.ndim}", RuntimeError)
        coords = int(shapes[0, 1]) if len(shapes) else 4
        if coords not in (4, 6) or (shapes[:, 1] != coords).any():
            raise self.error(f"Unexpected number of coordinates for bounding boxes: "
                             f"{sorted(set(shapes[:, 1].tolist()))} (4 for 2-D boxes, 6 for "
                             f"3-D ones, the same in every sample)", RuntimeError)
        ndim = coords // 2
        cols = self._cols.get(ndim)
        if cols is None:
            layout = self.args["bbox_layout"] or (("xyXY", "xyWH"), ("xyzXYZ", "xyzWHD"))[
                ndim - 2][0 if self.args["ltrb"] else 1]
            cols = _boxes.parse_layout(self, layout, ndim)
            if len(self.aspect) == 3 and ndim == 2:
                raise self.error("`aspect_ratio` has 6 values (3-D pairs) but the boxes are "
                                 "2-D", RuntimeError)
            self._cols[ndim] = cols
        counts = shapes[:, 0]
        labels = None
        if len(ws.inputs) > 1:
            labels = _boxes.labels(self, ws, 1, counts)
        n = len(counts)
        descs = [_operator.OutputDesc([(ndim,)] * n, np.dtype(_F32), "", 1),
                 _operator.OutputDesc([(ndim,)] * n, np.dtype(_F32), "", 1),
                 _operator.OutputDesc(None, np.dtype(_F32), ws.inputs[0].layout(), 2)]
        if labels is not None:
            descs.append(_operator.OutputDesc(None, np.dtype(np.int32),
                                              ws.inputs[1].layout(), labels[0].ndim))
        if self.args["output_bbox_indices"]:
            descs.append(_operator.OutputDesc(None, np.dtype(np.int32), "", 1))
        return _operator.Plan(descs, ndim=ndim, cols=cols, counts=counts, labels=labels,
                              sizes=self._sizes(ws, ndim))

    def _sizes(self, ws, ndim):
        """(input sizes, crop sizes) as (n, ndim) float64 arrays in x, y(, z) order, each None
        when not given."""
        perm = self._orders.get(ndim)
        if perm is None:
            layout = self.args["shape_layout"] or "WHD"[:ndim]
            if sorted(layout) != sorted("WHD"[:ndim]):
                raise self.error(f'`shape_layout` "{layout}" must hold the letters of '
                                 f'"{"WHD"[:ndim]}"', RuntimeError)
            perm = self._orders[ndim] = np.argsort(["WHD".index(c) for c in layout])
        out = []
        for name in ("input_shape", "crop_shape"):
            if not ws.arg_given(name):
                out.append(None)
                continue
            rows = ws.arg_rows(name)
            if rows is None or rows.shape[1] != ndim:
                raise self.error(f"`{name}` must have {ndim} values per sample (one per axis "
                                 f"of the boxes)", RuntimeError)
            if (rows <= 0).any():
                raise self.error(f"`{name}` must be positive, got {rows[(rows <= 0).any(1)][0]}",
                                 RuntimeError)
            out.append(rows[:, perm])
        return out

    def run_cpu(self, ws, plan):
        storage = ws.input_storage(0).contiguous()
        ndim, counts = plan.ndim, plan.counts
        src = storage.flat().reshape(-1, 2 * ndim)
        lo, hi = _boxes.to_corners(src, plan.cols)
        _boxes.check_inside(ws, src, lo, hi, counts)
        crop_lo, crop_hi, anchor, nocrop = self._search(ws, plan, lo, hi, counts)
        self._outputs(ws, plan, src, lo, hi, crop_lo, crop_hi, anchor, nocrop)

    # -- the window search --------------------------------------------------------------------
    def _search(self, ws, plan, lo, hi, counts):
        a = self.args
        total = int(a["total_num_attempts"])
        in_size, crop_size = plan.sizes
        crop_lo, crop_hi, anchor, status, best = boxes.crop_search(
            ws.thread_pool, lo, hi, counts, ws.sample_ids, ws.random_key(), 0, self.thresholds,
            self.no_crop, int(a["num_attempts"]), total if total >= 0 else _MAX_ATTEMPTS,
            total >= 0, a["threshold_type"] == "iou", bool(a["all_boxes_above_threshold"]),
            -1.0 if a["bbox_prune_threshold"] is None else float(a["bbox_prune_threshold"]),
            a["scaling"][0], a["scaling"][1], self.aspect_rows, in_size, crop_size)
        if (status == _GAVE_UP).any():
            raise ws.sample_error(int(np.flatnonzero(status == _GAVE_UP)[0]),
                                  f"no valid crop window in {_MAX_ATTEMPTS} attempts; give "
                                  f"`total_num_attempts` to take the best candidate instead",
                                  RuntimeError)
        if (status == _BEST).any() and not a["quiet"]:
            metric = best[status == _BEST].max()
            warnings.warn(f"{self.spec.display_name}: Could not find a valid cropping window "
                          f"to satisfy the specified requirements (attempted {total} times). "
                          f"Using the best cropping window so far "
                          f"(best_metric={max(metric, 0.0):g})", stacklevel=2)
        return crop_lo, crop_hi, anchor, status == _NO_CROP

    # -- outputs ------------------------------------------------------------------------------
    def _outputs(self, ws, plan, src, lo, hi, crop_lo, crop_hi, anchors, nocrop):
        ndim, counts = plan.ndim, plan.counts
        n = len(counts)
        anchor = ws.outputs[0].flat().reshape(n, ndim)
        shape = ws.outputs[1].flat().reshape(n, ndim)
        if self.fixed:
            shape[...] = plan.sizes[1]
            anchor[...] = anchors
        else:
            anchor[...] = crop_lo
            shape[...] = crop_hi - crop_lo
        new_lo, new_hi, keep, kept = _boxes.crop(lo, hi, counts, crop_lo, crop_hi, nocrop,
                                                 self.args["bbox_prune_threshold"])
        boxes = _boxes.from_corners(new_lo, new_hi, plan.cols)
        same = np.repeat(nocrop, counts)
        boxes[same] = src[same]
        ws.outputs[2] = _boxes.kept_rows(boxes, keep, kept, 2)
        k = 3
        if plan.labels is not None:
            storage, rows = plan.labels
            ws.outputs[k] = _boxes.kept_rows(rows, keep, kept, storage.ndim)
            k += 1
        if self.args["output_bbox_indices"]:
            index = np.arange(len(keep)) - np.repeat(np.cumsum(counts) - counts, counts)
            ws.outputs[k] = _boxes.kept_rows(index.astype(np.int32), keep, kept, 1)
