"""fn.color_twist, fn.hsv, fn.hue and fn.saturation: linear colour transforms of RGB pixels.

Each pixel is mapped to `M @ rgb + offset`, with the 3x3 matrix composed in YIQ space as DALI
does: `M = brightness * contrast * inv(RGB2YIQ) @ H(hue) @ diag(value, s*value, s*value)
@ RGB2YIQ`, where H rotates the I/Q plane by `hue` degrees and s is the saturation (the YIQ
matrix uses DALI's rounded coefficients and its exact inverse, so a gray pixel is not quite a
fixed point).  The matrix is composed in double and rounded to float32.  color_twist adds the
contrast offset `(h - h * contrast) * brightness` (float32), h = 0.5 for floating point inputs
and 128 for integer ones; hsv has no offset.  The output is converted to `dtype` (integers
round half away from zero and saturate, float16 overflows to infinity).

Arguments are not range-checked (DALI accepts negative factors).  Inputs: HWC images, FHWC
sequences (arguments may vary per frame) and DHWC volumes with 3 channels.  fn.hsv's `dtype`
defaults to UINT8 whatever the input type, as in DALI.
"""

from __future__ import annotations

import functools

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import color as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali._types import DALIImageType
from dali.ops import _layouts
from dali.ops.color import _color, _color_gpu

LAYOUTS = ("HWC", "FHWC", "DHWC")
TYPES = (T.UINT8, T.INT16, T.INT32, T.FLOAT, T.FLOAT16)
_RGB_TO_YIQ = np.array([[0.299, 0.587, 0.114],
                        [0.596, -0.274, -0.321],
                        [0.211, -0.523, 0.311]], np.float32).astype(np.float64)
_YIQ_TO_RGB = np.linalg.inv(_RGB_TO_YIQ)
_F32 = np.float32


def twist_matrices(hue=0.0, saturation=1.0, value=1.0, brightness=1.0, contrast=1.0):
    """The float32 (n, 3, 3) RGB matrices of arrays (or scalars) of factors (see the module
    docstring)."""
    h, s, v, b, c = np.broadcast_arrays(*(np.asarray(x, _F32).astype(np.float64) for x in (
        hue, saturation, value, brightness, contrast)))
    h = np.radians(h.reshape(-1))
    rot = np.zeros((h.size, 3, 3))
    rot[:, 0, 0] = 1
    rot[:, 1, 1] = rot[:, 2, 2] = np.cos(h)
    rot[:, 1, 2] = np.sin(h)
    rot[:, 2, 1] = -np.sin(h)
    diag = np.zeros_like(rot)
    diag[:, 0, 0] = v.reshape(-1)
    diag[:, 1, 1] = diag[:, 2, 2] = (s * v).reshape(-1)
    scale = (b * c).reshape(-1, 1, 1)
    m = scale * _YIQ_TO_RGB @ rot @ diag @ _RGB_TO_YIQ
    return m.astype(_F32)


def contrast_offsets(brightness, contrast, half_range):
    """`(h - h * contrast) * brightness` in float32."""
    h = _F32(half_range)
    return (h - h * np.asarray(contrast, _F32)) * np.asarray(brightness, _F32)


def _dtype_arg(default=None):
    return Arg("dtype", T.DATA_TYPE, default,
               doc="Output data type: uint8, int16, int32, float or float16. "
                   + ("The default is uint8, whatever the input type."
                      if default is not None else "If not set, the input type is used."))


def _image_type_arg():
    return Arg("image_type", T.IMAGE_TYPE, DALIImageType.RGB,
               doc="The colour space of the input and the output image.",
               ignored="DALI ignores it too: the data is treated as RGB")


def _transform(values, half_range):
    """The matrices and offsets of per-part factor arrays (`values`: name -> array);
    `half_range` is None without color_twist's contrast offset."""
    mats = twist_matrices(**values)
    offsets = np.zeros((len(mats), 3), _F32)
    if half_range is not None:
        offsets[:] = np.reshape(contrast_offsets(values["brightness"], values["contrast"],
                                                 half_range), (-1, 1))
    return mats, offsets


@functools.lru_cache(maxsize=256)
def _constant_transform(items, half_range):
    """`_transform` of constant factors (`items`: (name, value) pairs), read-only."""
    mats, offsets = _transform(dict(items), half_range)
    mats.flags.writeable = offsets.flags.writeable = False
    return mats, offsets


class _LinearColor(_operator.Operator):
    """Shared infer/run of the four operators; subclasses list their factor arguments."""

    factors: tuple = ()
    offset = False                       # color_twist's contrast offset

    def infer(self, ws):
        tl = ws.inputs[0]
        layout = _layouts.image_layout(self, tl, LAYOUTS)
        in_type = _color.check_type(self, tl.dtype, TYPES)
        out_type = _color.output_type(self, in_type, TYPES)
        shapes = ws.input_storage(0).shapes
        _color.channels_of(self, shapes, layout, 3)
        half_range = (0.5 if _types.is_float(in_type) else 128.0) if self.offset else None
        desc = _operator.OutputDesc(shapes, _types.dtype_of(out_type), layout)
        if _color.constant_args(ws, self.factors):
            mats, offsets = _constant_transform(
                tuple((n, float(self.args[n])) for n in self.factors), half_range)
            return _operator.Plan([desc], mats=mats, offsets=offsets, frames=None)
        frames = _color.frames_per_sample(ws, self.factors, layout, shapes)
        mats, offsets = _transform({n: _color.part_values(ws, n, frames) for n in self.factors},
                                   half_range)
        return _operator.Plan([desc], mats=mats, offsets=offsets, frames=frames)

    def run_cpu(self, ws, plan):
        _kernel.linear_storage(ws.thread_pool, ws.input_storage(0), ws.outputs[0], plan.mats,
                               plan.offsets, plan.frames)

    def run_gpu(self, ws, plan):
        _color_gpu.run_linear(ws, plan)


def _factor(name, default, doc):
    return Arg(name, T.FLOAT, default, tensor=True, doc=doc)


_HUE_DOC = "Hue change, in degrees (a rotation of the I/Q plane of YIQ; any value wraps)."
_SAT_DOC = "Saturation factor: 0 gives gray, 1 keeps the image (not range-checked)."


@_registry.register
class ColorTwist(_LinearColor):
    factors = ("hue", "saturation", "brightness", "contrast")
    offset = True
    schema = Schema(
        "color_twist", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Adjusts hue, saturation, brightness and contrast of RGB images, sequences and "
            "volumes with one linear transform per pixel (composed in YIQ space). Contrast "
            "scales around half of the input range (0.5 for floats, 128 for integers).",
        args=[
            _factor("hue", 0.0, _HUE_DOC),
            _factor("saturation", 1.0, _SAT_DOC),
            _factor("brightness", 1.0, "Brightness factor: 0 gives black, 1 keeps the image."),
            _factor("contrast", 1.0, "Contrast factor: 0 gives uniform gray, 1 keeps the "
                                     "image."),
            _dtype_arg(),
            _image_type_arg(),
        ])


@_registry.register
class Hsv(_LinearColor):
    factors = ("hue", "saturation", "value")
    schema = Schema(
        "hsv", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Adjusts hue, saturation and value (brightness) of RGB images, approximated by "
            "one linear transform per pixel in YIQ space: the colour is rotated by `hue` "
            "about the gray axis and scaled by `saturation` and `value`.\n\n"
            "Note that the output type defaults to uint8 whatever the input type.",
        args=[
            _factor("hue", 0.0, "Hue delta, in degrees; values outside 0..360 wrap around."),
            _factor("saturation", 1.0, "The saturation multiplier."),
            _factor("value", 1.0, "The value (brightness) multiplier."),
            _dtype_arg(T.UINT8),
        ])


@_registry.register
class Hue(_LinearColor):
    factors = ("hue",)
    schema = Schema(
        "hue", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Changes the hue of RGB images: a rotation of the I/Q plane of YIQ.",
        args=[_factor("hue", 0.0, "The hue change, in degrees."), _dtype_arg(),
              _image_type_arg()])


@_registry.register
class Saturation(_LinearColor):
    factors = ("saturation",)
    schema = Schema(
        "saturation", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Changes the saturation of RGB images: a scaling of the I/Q plane of YIQ.",
        args=[_factor("saturation", 1.0, _SAT_DOC), _dtype_arg(), _image_type_arg()])
