"""experimental.remap and experimental.resize: DALI 2.4's GPU-only geometry operators (see
dali/ops/_gpu_only.py); experimental.resize declares fn.resize's arguments."""

from __future__ import annotations

from dali import _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali._types import DALIInterpType as Interp
from dali.ops import _gpu_only
from dali.ops.geometry import _resize_common, _resize_size


@_registry.register
class Remap(_gpu_only.GpuOnly):
    schema = Schema(
        "experimental.remap", inputs=3, outputs=1, devices=("gpu",), cpu=False,
        input_names=["input", "mapx", "mapy"],
        doc=_gpu_only.gpu_doc("Moves pixels by per-pixel maps: output(x, y) = "
                              "input(mapx(x, y), mapy(x, y)), interpolated."),
        args=[
            Arg("interp", T.INTERP_TYPE, Interp.INTERP_LINEAR,
                doc="Interpolation: INTERP_NN or INTERP_LINEAR."),
            Arg("pixel_origin", T.STRING, "corner",
                doc="Where the maps' coordinates of a pixel point: \"corner\" or \"center\"."),
        ])


@_registry.register
class Resize(_gpu_only.GpuOnly):
    schema = Schema(
        "experimental.resize", inputs=1, outputs=lambda args: 2 if args.get("save_attrs") else 1,
        devices=("gpu",), cpu=False,
        doc=_gpu_only.gpu_doc("Resizes images, as fn.resize does (same arguments), with "
                              "DALI's experimental GPU kernels."),
        args=_gpu_only.as_declared([
            *_resize_size.size_args(),
            Arg("save_attrs", T.BOOL, False,
                doc="Add a second output: the input's spatial shape (int32) per sample."),
            Arg("image_type", T.IMAGE_TYPE, None,
                deprecated="The argument `image_type` is no longer used and will be removed "
                           "in a future release."),
            *_resize_common.filter_args(),
        ]))
