"""fn.brightness_contrast, fn.brightness and fn.contrast: a per-element linear map.

    out = brightness_shift * range(out type)
          + brightness * (contrast_center + contrast * (in - contrast_center))

computed as DALI does, in float32 as `in * mul + add` with `mul = brightness * contrast` and
`add = brightness_shift * range + brightness * (center - contrast * center)`.  `range` is 1
for float outputs and the type's maximum for integers; the values themselves are *not*
rescaled when the type changes (uint8 200 -> float 200.0).  Without `contrast_center` the
center is half the input type's positive range: 128 for uint8, 2**14 for int16, 2**30 for
int32, 0.5 for float.  The result is converted to `dtype` (integers round half away from zero
and saturate).

Types: uint8, int16, int32 and float in and out.  Any number of channels; HWC, FHWC (arguments
may vary per frame) and DHWC layouts.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import color as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _layouts
from dali.ops.color import _color

LAYOUTS = ("FHWC", "DHWC", "HWC")
TYPES = (T.UINT8, T.INT16, T.INT32, T.FLOAT)
_F32 = np.float32
_FULL_RANGE = {T.UINT8: 255.0, T.INT16: 32767.0, T.INT32: 2147483647.0, T.FLOAT: 1.0}
_HALF_RANGE = {T.UINT8: 128.0, T.INT16: 16384.0, T.INT32: 1073741824.0, T.FLOAT: 0.5}

_ARGS = {
    "brightness": Arg("brightness", T.FLOAT, 1.0, tensor=True, doc="Brightness multiplier."),
    "brightness_shift": Arg(
        "brightness_shift", T.FLOAT, 0.0, tensor=True,
        doc="The brightness shift, in units of the output range: 1.0 is the maximum value of "
            "an integer output type (1.0 for float)."),
    "contrast": Arg("contrast", T.FLOAT, 1.0, tensor=True,
                    doc="The contrast multiplier; 0.0 gives uniform gray (`contrast_center`)."),
    "contrast_center": Arg(
        "contrast_center", T.FLOAT, 0.5, tensor=True,
        doc="The intensity that contrast leaves unchanged. When not set, half of the input "
            "type's positive range (128 for uint8, 0.5 for float)."),
}
_DTYPE = Arg("dtype", T.DATA_TYPE, None,
             doc="Output data type: uint8, int16, int32 or float. If not set, the input type "
                 "is used.")


def kernel_factors(in_type, out_type, brightness, shift, contrast, center=None):
    """(mul, add) in float32 for one sample or frame (see the module docstring)."""
    b, s, c = _F32(brightness), _F32(shift), _F32(contrast)
    center = _F32(_HALF_RANGE[in_type] if center is None else center)
    add = s * _F32(_FULL_RANGE[out_type]) + b * (center - c * center)
    return b * c, add


class _BrightnessContrast(_operator.Operator):
    factors: tuple = ()

    def infer(self, ws):
        tl = ws.inputs[0]
        self.layout = _layouts.image_layout(self, tl, LAYOUTS)
        self.in_type = _color.check_type(self, tl.dtype, TYPES)
        self.out_type = _color.output_type(self, self.in_type, TYPES)
        shapes = [tuple(s) for s in tl.shape()]
        return _operator.Plan(
            [_operator.OutputDesc(shapes, _types.dtype_of(self.out_type), self.layout)])

    def run_cpu(self, ws, plan):
        per_frame = self.layout.startswith("F") and any(
            ws.is_arg_input(n) and ws.arg_inputs[n].layout().startswith("F")
            for n in self.factors)
        has_center = ws.arg_given("contrast_center")
        jobs = []
        for i, (src, dst) in enumerate(zip(ws.input_samples(0), ws.output_samples(0),
                                           strict=True)):
            frames = src.shape[0] if per_frame else 1
            v = {n: _color.frame_values(ws, n, i, frames) for n in self.factors}
            one = np.ones(frames, _F32)
            factors = [kernel_factors(
                self.in_type, self.out_type, v.get("brightness", one)[f],
                v.get("brightness_shift", one * 0)[f], v.get("contrast", one)[f],
                v["contrast_center"][f] if has_center else None) for f in range(frames)]
            params = [(np.full((1, 1), m, _F32), np.full(1, a, _F32)) for m, a in factors]
            for s, d, f in _color.pixel_items(src, dst, self.layout, 1, 1, per_frame):
                jobs.append((s, d, *params[f]))
        _kernel.linear_batch(ws.thread_pool, jobs)


@_registry.register
class BrightnessContrast(_BrightnessContrast):
    factors = ("brightness", "brightness_shift", "contrast", "contrast_center")
    schema = Schema(
        "brightness_contrast", inputs=1, outputs=1, devices=("cpu",),
        doc="Adjusts the brightness and contrast of images:\n\n"
            "    out = brightness_shift * output_range +\n"
            "          brightness * (contrast_center + contrast * (in - contrast_center))\n\n"
            "where output_range is 1 for float outputs and the maximum value of integer ones. "
            "Can also change the data type.",
        args=[*_ARGS.values(), _DTYPE])


@_registry.register
class Brightness(_BrightnessContrast):
    factors = ("brightness", "brightness_shift")
    schema = Schema(
        "brightness", inputs=1, outputs=1, devices=("cpu",),
        doc="Adjusts the brightness of images:\n\n"
            "    out = brightness_shift * output_range + brightness * in\n\n"
            "where output_range is 1 for float outputs and the maximum value of integer ones. "
            "Can also change the data type.",
        args=[_ARGS["brightness"], _ARGS["brightness_shift"], _DTYPE])


@_registry.register
class Contrast(_BrightnessContrast):
    factors = ("contrast", "contrast_center")
    schema = Schema(
        "contrast", inputs=1, outputs=1, devices=("cpu",),
        doc="Adjusts the contrast of images:\n\n"
            "    out = contrast_center + contrast * (in - contrast_center)\n\n"
            "Can also change the data type.",
        args=[_ARGS["contrast"], _ARGS["contrast_center"], _DTYPE])
