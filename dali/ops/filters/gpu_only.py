"""experimental.median_blur, experimental.dilate, experimental.erode: DALI 2.4's GPU-only
filters (see dali/ops/_gpu_only.py), run on the GPU by `rank_filter.cu` (`_rank_filter_gpu`).

As DALI (CV-CUDA's MedianBlur and Morphology), they take HW, HWC, FHWC, CHW and FCHW images of
uint8, uint16 or float32; channel-first planes are filtered one by one, HWC channels
independently (at most 4 for the median, CV-CUDA's limit).  Window sizes and anchors are
(width, height) / (x, y), per sample or, on sequences, per frame.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _gpu_only, _gpu_program, _layouts
from dali.ops.filters import _convolution, _rank_filter_gpu

LAYOUTS = ("HW", "HWC", "FHWC", "CHW", "FCHW")
_TYPE_NAMES = {np.dtype(np.uint8): "uint8", np.dtype(np.uint16): "uint16",
               np.dtype(np.float32): "float"}


def _morphology_args():
    return [
        Arg("mask_size", T._INT32_VEC, [3, 3], tensor=True,
            doc="Size of the structuring element (width, height). Supports per-frame inputs."),
        Arg("anchor", T._INT32_VEC, [-1, -1], tensor=True,
            doc="Position (x, y) of the anchor in the structuring element; -1 means its "
                "center. Supports per-frame inputs."),
        Arg("iterations", T.INT32, 1,
            doc="Number of times the operation is applied (0: a copy); each iteration reads "
                "the previous one's output."),
        Arg("border_mode", T.STRING, "constant",
            doc="How pixels past the border are made: \"constant\" (they do not count: "
                "CV-CUDA's lowest / highest value of the type, the smallest positive normal "
                "number for a float dilation), \"replicate\", \"reflect\", \"reflect_101\" or "
                "\"wrap\"."),
    ]


class _RankFilter(_gpu_only.GpuOnly):
    """The layout, type and per-part geometry shared by the three operators."""

    def _geometry(self, ws):
        """(storage, layout, geometry rows, Axes) of the input."""
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        layout = _layouts.image_layout(self, tl, LAYOUTS)
        if storage.dtype not in _TYPE_NAMES:
            raise self.error(f"Unsupported input type: {storage.dtype}. Supported types are "
                             f"uint8, uint16 and float.", TypeError)
        start = 1 if layout[0] == "F" else 0
        axes = _convolution.Axes(start == 1, layout[start] == "C", layout[-1] == "C", 2)
        shapes = np.asarray(storage.shapes, np.int64).reshape(len(tl), storage.ndim)
        return storage, layout, _convolution.geometry(shapes, axes), axes, shapes

    def _sizes(self, ws, name, geo, axes, shapes, minimum):
        values = _convolution.per_part(self, ws, name, 2, geo, axes, shapes, np.int64)
        bad = np.flatnonzero((values < minimum).any(axis=1))
        if bad.size:
            v = values[bad[0]]
            raise self.error(f"`{name}` must be at least {minimum} in both dimensions, got "
                             f"({v[0]}, {v[1]}).")
        return values

    @staticmethod
    def _plan(storage, layout, **extra):
        return _operator.Plan([_operator.OutputDesc(storage.shapes, storage.dtype, layout)],
                              **extra)


@_registry.register
class MedianBlur(_RankFilter):
    schema = Schema(
        "experimental.median_blur", inputs=1, outputs=1, devices=("gpu",), cpu=False,
        doc=_gpu_only.gpu_doc(
            "Median blur: each pixel becomes the median of the `window_size` window centered "
            "on it, per channel, pixels past the border replicating the edge (as CV-CUDA's "
            "MedianBlur). HW, HWC (at most 4 channels), CHW images or sequences of them; "
            "uint8, uint16 or float.", kernel=True),
        args=[Arg("window_size", T._INT32_VEC, [3, 3], tensor=True,
                  doc="Size of the window (width, height): positive odd extents; one value "
                      "for both.")])

    def infer(self, ws):
        storage, layout, geo, axes, shapes = self._geometry(ws)
        if axes.channels_last and len(geo) and (geo[:, 5] > 4).any():
            i = int(np.flatnonzero(geo[:, 5] > 4)[0])
            raise ws.sample_error(i, f"Median blur takes at most 4 channels in the {layout} "
                                     f"layout, got {geo[i, 5]}.")
        windows = self._sizes(ws, "window_size", geo, axes, shapes, 1)
        even = np.flatnonzero((windows % 2 == 0).any(axis=1))
        if even.size:
            w = windows[even[0]]
            raise self.error(f"`window_size` must have odd extents, got ({w[0]}, {w[1]}).")
        return self._plan(storage, layout, geometry=geo, windows=windows)

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        program = _rank_filter_gpu.median(plan.geometry, plan.windows, src.dtype, src.offsets,
                                          out.offsets)
        _gpu_program.run(ws.gpu, program, src, out)


class _Morphology(_RankFilter):
    dilate = True

    def setup(self):
        super().setup()
        if self.args["border_mode"] not in _rank_filter_gpu.BORDERS:
            raise self.error(f"Unknown border mode: {self.args['border_mode']}")
        if self.args["iterations"] < 0:
            raise self.error(f"`iterations` must be non-negative, got {self.args['iterations']}.")

    def infer(self, ws):
        storage, layout, geo, axes, shapes = self._geometry(ws)
        masks = self._sizes(ws, "mask_size", geo, axes, shapes, 1)
        anchors = self._sizes(ws, "anchor", geo, axes, shapes, -1)
        outside = np.flatnonzero((anchors >= masks).any(axis=1))
        if outside.size:
            p = int(outside[0])
            raise self.error(f"`anchor` ({anchors[p, 0]}, {anchors[p, 1]}) must lie within the "
                             f"structuring element of size ({masks[p, 0]}, {masks[p, 1]}).")
        anchors = np.where(anchors == -1, masks // 2, anchors)
        return self._plan(storage, layout, geometry=geo, masks=masks, anchors=anchors)

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        program = _rank_filter_gpu.morphology(
            self.dilate, plan.geometry, plan.masks, plan.anchors, self.args["iterations"],
            self.args["border_mode"], src.dtype, src.offsets, out.offsets, out.nbytes)
        _gpu_program.run(ws.gpu, program, src, out)


@_registry.register
class Dilate(_Morphology):
    schema = Schema(
        "experimental.dilate", inputs=1, outputs=1, devices=("gpu",), cpu=False,
        doc=_gpu_only.gpu_doc("Morphological dilation: each pixel becomes the maximum over "
                              "the structuring element placed at it (as CV-CUDA's "
                              "Morphology). HW, HWC, CHW images or sequences of them; uint8, "
                              "uint16 or float.", kernel=True),
        args=_morphology_args())


@_registry.register
class Erode(_Morphology):
    dilate = False
    schema = Schema(
        "experimental.erode", inputs=1, outputs=1, devices=("gpu",), cpu=False,
        doc=_gpu_only.gpu_doc("Morphological erosion: each pixel becomes the minimum over "
                              "the structuring element placed at it (as CV-CUDA's "
                              "Morphology). HW, HWC, CHW images or sequences of them; uint8, "
                              "uint16 or float.", kernel=True),
        args=_morphology_args())
