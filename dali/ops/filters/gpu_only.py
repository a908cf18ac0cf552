"""experimental.median_blur, experimental.dilate, experimental.erode: DALI 2.4's GPU-only
filters (see dali/ops/_gpu_only.py)."""

from __future__ import annotations

from dali import _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _gpu_only


def _morphology_args():
    return [
        Arg("mask_size", T._INT32_VEC, [3, 3], tensor=True,
            doc="Size of the structuring element (width, height)."),
        Arg("anchor", T._INT32_VEC, [-1, -1], tensor=True,
            doc="Position of the anchor in the structuring element; -1 means its center."),
        Arg("iterations", T.INT32, 1, doc="Number of times the operation is applied."),
        Arg("border_mode", T.STRING, "constant",
            doc="How pixels past the border are made: \"constant\", \"replicate\", "
                "\"reflect\", \"reflect_101\" or \"wrap\"."),
    ]


@_registry.register
class MedianBlur(_gpu_only.GpuOnly):
    schema = Schema(
        "experimental.median_blur", inputs=1, outputs=1, devices=("gpu",), cpu=False,
        doc=_gpu_only.gpu_doc("Median blur: each pixel becomes the median of its window, per "
                              "channel (HWC or CHW images, uint8, uint16 or float)."),
        args=[Arg("window_size", T._INT32_VEC, [3, 3], tensor=True,
                  doc="Size of the window (width, height), odd extents.")])


@_registry.register
class Dilate(_gpu_only.GpuOnly):
    schema = Schema(
        "experimental.dilate", inputs=1, outputs=1, devices=("gpu",), cpu=False,
        doc=_gpu_only.gpu_doc("Morphological dilation: each pixel becomes the maximum over "
                              "the structuring element placed at it."),
        args=_morphology_args())


@_registry.register
class Erode(_gpu_only.GpuOnly):
    schema = Schema(
        "experimental.erode", inputs=1, outputs=1, devices=("gpu",), cpu=False,
        doc=_gpu_only.gpu_doc("Morphological erosion: each pixel becomes the minimum over "
                              "the structuring element placed at it."),
        args=_morphology_args())
