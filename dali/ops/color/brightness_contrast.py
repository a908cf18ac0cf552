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

import functools

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import color as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _layouts
from dali.ops.color import _color, _color_gpu

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
    """(mul, add) in float32 for arrays of per-part values (see the module docstring); the
    center defaults to half the input type's range."""
    b, s, c = (np.asarray(v, _F32) for v in (brightness, shift, contrast))
    center = np.asarray(_HALF_RANGE[in_type] if center is None else center, _F32)
    add = s * _F32(_FULL_RANGE[out_type]) + b * (center - c * center)
    return b * c, add


@functools.lru_cache(maxsize=256)
def _constant_factors(in_type, out_type, brightness, shift, contrast, center):
    """One (1, 1, 1) matrix and (1, 1) offset for constant arguments."""
    mul, add = kernel_factors(in_type, out_type, brightness, shift, contrast, center)
    mats, offs = mul.reshape(1, 1, 1), add.reshape(1, 1)
    mats.flags.writeable = offs.flags.writeable = False
    return mats, offs


class _BrightnessContrast(_operator.Operator):
    factors: tuple = ()

    def infer(self, ws):
        tl = ws.inputs[0]
        layout = _layouts.image_layout(self, tl, LAYOUTS)
        in_type = _color.check_type(self, tl.dtype, TYPES)
        out_type = _color.output_type(self, in_type, TYPES)
        shapes = ws.input_storage(0).shapes
        desc = _operator.OutputDesc(shapes, _types.dtype_of(out_type), layout)
        if _color.constant_args(ws, self.factors):
            a = self.args
            center = a["contrast_center"] if "contrast_center" in self.factors and \
                ws.arg_given("contrast_center") else None
            mats, offs = _constant_factors(
                in_type, out_type, a.get("brightness", 1.0), a.get("brightness_shift", 0.0),
                a.get("contrast", 1.0), center)
            return _operator.Plan([desc], mats=mats, offsets=offs, frames=None)
        frames = _color.frames_per_sample(ws, self.factors, layout, shapes)
        v = {n: _color.part_values(ws, n, frames) for n in self.factors}
        center = v["contrast_center"] if "contrast_center" in v and ws.arg_given(
            "contrast_center") else None
        mul, add = kernel_factors(in_type, out_type, v.get("brightness", 1.0),
                                  v.get("brightness_shift", 0.0), v.get("contrast", 1.0),
                                  center)
        parts = ws.batch_size if frames is None else int(frames.sum())
        return _operator.Plan(
            [desc], mats=np.broadcast_to(mul, parts).reshape(-1, 1, 1),
            offsets=np.broadcast_to(add, parts).reshape(-1, 1), frames=frames)

    def run_cpu(self, ws, plan):
        _kernel.linear_storage(ws.thread_pool, ws.input_storage(0), ws.outputs[0], plan.mats,
                               plan.offsets, plan.frames)

    def run_gpu(self, ws, plan):
        _color_gpu.run_linear(ws, plan)


@_registry.register
class BrightnessContrast(_BrightnessContrast):
    factors = ("brightness", "brightness_shift", "contrast", "contrast_center")
    schema = Schema(
        "brightness_contrast", inputs=1, outputs=1, devices=("cpu", "gpu"),
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
        "brightness", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Adjusts the brightness of images:\n\n"
            "    out = brightness_shift * output_range + brightness * in\n\n"
            "where output_range is 1 for float outputs and the maximum value of integer ones. "
            "Can also change the data type.",
        args=[_ARGS["brightness"], _ARGS["brightness_shift"], _DTYPE])


@_registry.register
class Contrast(_BrightnessContrast):
    factors = ("contrast", "contrast_center")
    schema = Schema(
        "contrast", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Adjusts the contrast of images:\n\n"
            "    out = contrast_center + contrast * (in - contrast_center)\n\n"
            "Can also change the data type.",
        args=[_ARGS["contrast"], _ARGS["contrast_center"], _DTYPE])
