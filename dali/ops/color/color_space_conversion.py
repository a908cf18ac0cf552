"""fn.color_space_conversion: converts uint8 images between RGB, BGR, GRAY and YCbCr.

Conversions (`dali._ext.kernels.color.convert_space`, bit-exact with DALI 2.4 on every uint8
colour):
* RGB <-> BGR swap the channels;
* RGB/BGR -> GRAY: OpenCV's fixed-point luma (0.299, 0.587, 0.114), rounded;
* GRAY -> RGB/BGR replicates the channel;
* RGB/BGR <-> YCbCr: ITU-R BT.601 with footroom and headroom (Y in 16..235, chroma 16..240);
* GRAY <-> YCbCr: the luma rescaled between 0..255 and 16..235 (chroma 128).
A conversion to the same colour space (or involving ANY_DATA) is rejected, as in DALI.  The
channel axis must be last; images, sequences and volumes (HWC, FHWC, DHWC, FDHWC).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import color as _kernel
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali._types import DALIImageType as Img
from dali.ops import _layouts
from dali.ops.color import _color_gpu

LAYOUTS = ("FDHWC", "FHWC", "DHWC", "HWC")
_CHANNELS = {Img.RGB: 3, Img.BGR: 3, Img.GRAY: 1, Img.YCbCr: 3}
_RGB_LIKE = (Img.RGB, Img.BGR)


def conversion(src: Img, dst: Img):
    """(kernel conversion name, red channel index) for src -> dst, or None if unsupported."""
    if src in _RGB_LIKE and dst in _RGB_LIKE and src != dst:
        return "swap_rb", 0
    red = 2 if Img.BGR in (src, dst) else 0
    table = {
        (True, Img.GRAY): "to_gray", (True, Img.YCbCr): "rgb_to_ycbcr",
        (Img.GRAY, True): "gray_to_rgb", (Img.YCbCr, True): "ycbcr_to_rgb",
        (Img.YCbCr, Img.GRAY): "ycbcr_to_gray", (Img.GRAY, Img.YCbCr): "gray_to_ycbcr",
    }
    key = (True if src in _RGB_LIKE else src, True if dst in _RGB_LIKE else dst)
    name = table.get(key)
    return None if name is None else (name, red)


@_registry.register
class ColorSpaceConversion(_operator.Operator):
    schema = Schema(
        "color_space_conversion", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Converts between various image color models: RGB, BGR, GRAY and YCbCr (ITU-R "
            "BT.601, 16..235). The input must be uint8 with the channels last.",
        args=[
            Arg("image_type", T.IMAGE_TYPE, REQUIRED, doc="The color space of the input image."),
            Arg("output_type", T.IMAGE_TYPE, REQUIRED,
                doc="The color space of the output image."),
        ])

    def setup(self):
        self._memo = _operator.LastPlan()  # the last batch's plan (it depends on the shapes)

    def infer(self, ws):
        tl = ws.inputs[0]
        layout = _layouts.image_layout(self, tl, LAYOUTS)
        if tl.dtype != T.UINT8:
            raise self.error("Color space conversion accept only uint8 tensors", RuntimeError)
        src, dst = Img(self.args["image_type"]), Img(self.args["output_type"])
        conv = conversion(src, dst)
        if conv is None:
            raise self.error(f"conversion not supported: {src.name} -> {dst.name}",
                             RuntimeError)
        in_shapes = ws.input_storage(0).shapes
        key = _operator.shapes_key(in_shapes, layout)
        if (kept := self._memo.get(key)) is not None:
            return kept
        cin, cout = _CHANNELS[src], _CHANNELS[dst]
        c = layout.index("C")
        shapes = np.array(in_shapes)
        bad = np.flatnonzero(shapes[:, c] != cin)
        if bad.size:
            raise self.error(f"{src.name} input: expected {cin} channels, got "
                             f"{shapes[bad[0], c]}", RuntimeError)
        shapes[:, c] = cout
        shapes.flags.writeable = False
        plan = _operator.Plan([_operator.OutputDesc(shapes, np.dtype(np.uint8), layout)],
                              conversion=conv)
        return self._memo.keep(key, plan)

    def run_cpu(self, ws, plan):
        name, red = plan.conversion
        _kernel.convert_space_storage(ws.thread_pool, ws.input_storage(0), ws.outputs[0], name,
                                      red)

    def run_gpu(self, ws, plan):
        src, dst = ws.input_storage(0), ws.outputs[0]
        launch = _color_gpu.space_launch(src.shapes, *plan.conversion, src.offsets, dst.offsets)
        ws.gpu.launch(_color_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, dst, launch.samples, launch.code, launch.red, launch.coeffs))
