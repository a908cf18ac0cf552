"""fn.resize_crop_mirror (and its deprecated alias fn.fast_resize_crop_mirror): resize, crop and
flip fused into one resampling.

The resize is fn.resize's (`_resize_size`: sizes, modes, region of interest, `subpixel_scale`),
giving per spatial axis an output extent `out` and a source range [lo, hi).  The crop window
(`crop`, or `crop_w`/`crop_h`/`crop_d`; none: the whole resized image) starts at
`pos * (out - crop)`, rounded half away from zero ("round") or truncated ("truncate"), and may
reach outside the resized image.  Output position c of an axis corresponds to source position
`lo + (hi - lo) * c / out`, so the window maps to a source range that is resampled straight to
the crop size; `mirror` (bit 0 horizontal, 1 vertical, 2 depthwise) swaps the range's ends.
Sources outside the input take the nearest edge, as the resampling does.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from dali import _operator, _registry, _types
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _aliases
from dali.ops.geometry import _resize_common, _resize_gpu, _resize_size

LAYOUTS = ("HWC", "FHWC", "CHW", "FCHW", "CFHW", "DHWC", "FDHWC", "CDHW", "FCDHW", "CFDHW")
_AXIS_ARGS = {"W": ("crop_w", "crop_pos_x", 1), "H": ("crop_h", "crop_pos_y", 2),
              "D": ("crop_d", "crop_pos_z", 4)}


@_registry.register
class ResizeCropMirror(_resize_size.SizeLogic, _operator.Operator):
    schema = Schema(
        "resize_crop_mirror", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Performs a fused resize, crop, mirror operation: the result is that of `resize` "
            "followed by `crop` and `flip`, computed as one resampling of the input region "
            "that the crop window covers. Sequences (each frame alike) and volumes are "
            "supported.",
        args=[
            *_resize_size.size_args(),
            Arg("crop", T._FLOAT_VEC, None, tensor=True,
                doc="Shape of the crop window: `(crop_H, crop_W)`, or `(crop_D, crop_H, "
                    "crop_W)` for volumes. Excludes `crop_w`/`crop_h`/`crop_d`. Without a "
                    "crop the whole resized image is kept."),
            Arg("crop_w", T.FLOAT, 0.0, tensor=True, doc="Crop window width (pixels)."),
            Arg("crop_h", T.FLOAT, 0.0, tensor=True, doc="Crop window height (pixels)."),
            Arg("crop_d", T.FLOAT, 0.0, tensor=True,
                doc="Crop window depth (voxels), volumes only."),
            Arg("crop_pos_x", T.FLOAT, 0.5, tensor=True,
                doc="Normalized horizontal position of the window: its start is `crop_pos_x "
                    "* (W - crop_W)` in the resized image."),
            Arg("crop_pos_y", T.FLOAT, 0.5, tensor=True,
                doc="Normalized vertical position of the window; see `crop_pos_x`."),
            Arg("crop_pos_z", T.FLOAT, 0.5, tensor=True,
                doc="Normalized depthwise position of the window (volumes)."),
            Arg("rounding", T.STRING, "round",
                doc='How the window start becomes an integer: "round" (half away from zero) '
                    'or "truncate".'),
            Arg("mirror", T.INT32, 0, tensor=True,
                doc="Flip mask: 1 horizontal, 2 vertical, 4 depthwise, or a combination."),
            *_resize_common.filter_args(),
        ])

    def setup(self):
        if self.args["rounding"] not in ("round", "truncate"):
            raise self.error(f"Invalid rounding mode: \"{self.args['rounding']}\". Valid "
                             'options are "round" and "truncate".', RuntimeError)
        given = self.spec.given
        if "crop" in given and given & {"crop_w", "crop_h", "crop_d"}:
            raise self.error("\"crop\" and \"crop_w\", \"crop_h\", \"crop_d\" are mutually "
                             "exclusive", RuntimeError)
        self._memo = _operator.LastPlan()  # the last batch's plan values (no argument inputs)

    def infer(self, ws):
        layout = _resize_common.input_layout(self, ws.inputs[0], LAYOUTS)
        dtype = _types.dtype_of(_resize_common.output_type(self, ws))
        in_shapes = ws.input_storage(0).shapes
        key = _operator.shapes_key(in_shapes, layout)
        kept = self._memo.get(key)
        if kept is not None:
            shapes, geometry, bounds = kept
        else:
            shapes, geometry, bounds = _resize_common.batch_geometry(
                in_shapes, layout, lambda i, shape: self.sample_plan(ws, i, layout, shape))
            if not self.spec.arg_inputs:
                self._memo.keep(key, (shapes, geometry, bounds))
        return _operator.Plan([_operator.OutputDesc(list(shapes), dtype, layout)],
                              layout=layout, geometry=geometry, bounds=bounds)

    def run_cpu(self, ws, plan):
        _resize_common.resample_samples(
            ws, ws.input_samples(0), ws.output_samples(0), plan.layout, plan.geometry,
            _resize_common.filter_codes(ws), self.args["antialias"], None, plan.bounds)

    def run_gpu(self, ws, plan):
        """The resampling of the CPU path on the device."""
        _resize_gpu.run_plan(ws, plan, self.args["antialias"])

    def sample_plan(self, ws, i, layout, shape):
        """(output shape, (lo, hi)) of sample i: the resize's geometry narrowed to the crop
        window and mirrored."""
        spatial = [c for c in layout if c in "DHW"]
        out, lo, hi = self._sample_geometry(ws, i, layout, shape)
        crop = self.crop_size(ws, i, spatial)
        mirror = int(ws.arg("mirror")[i])
        sizes, src_lo, src_hi = [], [], []
        for d, axis in enumerate(spatial):
            size_arg, pos_arg, flag = _AXIS_ARGS[axis]
            size = out[d] if crop[d] <= 0 else crop[d]
            start = float(ws.arg(pos_arg)[i]) * (out[d] - size)
            start = math.trunc(start + math.copysign(0.5, start)) \
                if self.args["rounding"] == "round" else math.trunc(start)
            step = (hi[d] - lo[d]) / out[d] if out[d] else 0.0
            a, b = lo[d] + step * start, lo[d] + step * (start + size)
            if mirror & flag:
                a, b = b, a
            sizes.append(size)
            src_lo.append(a)
            src_hi.append(b)
        return _resize_size.plan_of(layout, shape, (sizes, src_lo, src_hi))

    def crop_size(self, ws, i, spatial):
        """The crop window per spatial axis (integers; 0: not cropped)."""
        n = len(spatial)
        if ws.arg_given("crop"):
            values = np.asarray(ws.arg("crop")[i], np.float64).reshape(-1)
            if len(values) == 1:
                values = np.repeat(values, n)
            if len(values) != n:
                raise ws.sample_error(i, f"`crop` must have {n} values (one per spatial "
                                         f"dimension), got {len(values)}", RuntimeError)
        else:
            values = [float(ws.arg(_AXIS_ARGS[c][0])[i]) for c in spatial]
        if any(not math.isfinite(v) or v < 0 for v in values):
            raise ws.sample_error(i, f"the crop window must be finite and non-negative, got "
                                     f"{list(values)}", RuntimeError)
        return [int(math.floor(v + 0.5)) for v in values]


class _NoAntialias(ResizeCropMirror):
    """ResizeCropMirror with antialiasing off by default (the base of its deprecated alias)."""
    schema = dataclasses.replace(ResizeCropMirror.schema, args=[
        dataclasses.replace(a, default=False) if a.name == "antialias" else a
        for a in ResizeCropMirror.schema.args])


FastResizeCropMirror = _aliases.deprecated_alias(
    "fast_resize_crop_mirror", _NoAntialias,
    "a legacy alias of it with antialiasing disabled by default", __name__)
