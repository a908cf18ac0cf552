"""experimental.remap and experimental.resize: DALI 2.4's GPU-only geometry operators (see
dali/ops/_gpu_only.py); experimental.remap runs `remap.cu` (`_remap_gpu`), experimental.resize
declares fn.resize's arguments."""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali._types import DALIInterpType as Interp
from dali.ops import _gpu_only, _layouts
from dali.ops.geometry import _remap_gpu, _resize_common, _resize_size

_REMAP_TYPES = {np.dtype(np.uint8): "uint8", np.dtype(np.int16): "int16",
                np.dtype(np.uint16): "uint16", np.dtype(np.float32): "float"}
_MAP_LAYOUTS = ("HWC", "HW", "FHWC", "FHW", "F***", "F**")


@_registry.register
class Remap(_gpu_only.GpuOnly):
    schema = Schema(
        "experimental.remap", inputs=3, outputs=1, devices=("gpu",), cpu=False,
        input_names=["input", "mapx", "mapy"],
        doc=_gpu_only.gpu_doc(
            "Moves pixels by per-pixel maps: output(x, y) = input(mapx(x, y), mapy(x, y)), "
            "interpolated, positions outside the input reading 0 (DALI's NPP remap). HWC "
            "images of 1 or 3 channels (uint8, int16, uint16 or float) or sequences of them; "
            "the output has the input's shape and the maps are float32 H x W planes (HW, or "
            "HWC of one channel), one per frame (layout starting with F) or one for the whole "
            "sequence.", kernel=True),
        args=[
            Arg("interp", T.INTERP_TYPE, Interp.INTERP_LINEAR,
                doc="Interpolation: INTERP_NN or INTERP_LINEAR."),
            Arg("pixel_origin", T.STRING, "corner",
                doc="Where the maps' coordinates of a pixel point: \"corner\" (its upper-left "
                    "corner: the maps are shifted by -0.5) or \"center\" (OpenCV's "
                    "convention)."),
        ])

    def setup(self):
        super().setup()
        if self.args["pixel_origin"] not in _remap_gpu.SHIFTS:
            raise self.error('Undefined pixel_origin parameter. Please choose one of: '
                             '["center", "corner"]')
        if Interp(self.args["interp"]) not in (Interp.INTERP_NN, Interp.INTERP_LINEAR):
            raise self.error(f"Interpolation {Interp(self.args['interp']).name} is not "
                             f"implemented (INTERP_NN or INTERP_LINEAR).", NotImplementedError)

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        layout = _layouts.image_layout(self, tl, ("HWC", "FHWC"))
        if storage.dtype not in _REMAP_TYPES:
            raise self.error(f"Unsupported input type: {storage.dtype}. Supported types are "
                             f"uint8, int16, uint16 and float.", TypeError)
        shapes = np.asarray(storage.shapes, np.int64).reshape(len(tl), storage.ndim)
        seq = layout == "FHWC"
        bad = np.flatnonzero((shapes[:, -1] != 1) & (shapes[:, -1] != 3))
        if bad.size:
            raise ws.sample_error(int(bad[0]), f"Incorrect number of channels: "
                                               f"{shapes[bad[0], -1]}. Only images with 1 and 3 "
                                               f"channels are supported.")
        map_frames = None
        for k, name in ((1, "mapx"), (2, "mapy")):
            frames = self._check_map(ws, k, name, shapes, seq)
            if map_frames is not None and (frames != map_frames).any():
                raise self.error("Maps shapes do not match: mapx and mapy must both have "
                                 "frames or both not.")
            map_frames = frames
        if not np.array_equal(np.asarray(ws.input_storage(1).shapes),
                              np.asarray(ws.input_storage(2).shapes)):
            raise self.error("Maps shapes do not match: mapx and mapy must have the same "
                             "shapes.")
        return _operator.Plan([_operator.OutputDesc(storage.shapes, storage.dtype, layout)],
                              map_frames=map_frames)

    def _check_map(self, ws, k, name, shapes, seq):
        """Whether each sample's map `k` has one plane per frame; checks its type and shape."""
        tl = ws.inputs[k]
        store = ws.input_storage(k)
        if store.dtype != np.float32:
            raise self.error(f"The {name} must be float32, got {store.dtype}.", TypeError)
        map_layout = tl.layout() or ""
        if map_layout and map_layout not in _MAP_LAYOUTS:
            raise self.error(f'The layout "{map_layout}" of {name} does not match any of the '
                             f"allowed layouts: {', '.join(_MAP_LAYOUTS)}.")
        ndim = store.ndim
        framed = seq and map_layout.startswith("F")
        plane_ndim = ndim - framed
        if plane_ndim not in (2, 3):
            raise self.error(f"The {name} must be H x W planes, got {ndim} dimensions.")
        mshapes = np.asarray(store.shapes, np.int64).reshape(len(tl), ndim)
        spatial = shapes[:, -3:-1]
        ok = (mshapes[:, framed:framed + 2] == spatial).all(axis=1)
        if plane_ndim == 3:
            ok &= mshapes[:, -1] == 1
        if framed:
            ok &= mshapes[:, 0] == shapes[:, 0]
        bad = np.flatnonzero(~ok)
        if bad.size:
            i = int(bad[0])
            raise ws.sample_error(i, f"Output and maps shapes do not match. Output: "
                                     f"{tuple(shapes[i].tolist())} ; {name}: "
                                     f"{tuple(mshapes[i].tolist())}.")
        return np.full(len(tl), framed)

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        mapx, mapy = ws.input_storage(1), ws.input_storage(2)
        launch = _remap_gpu.launch(
            src.shapes, plan.map_frames, src.dtype,
            Interp(self.args["interp"]) == Interp.INTERP_LINEAR, self.args["pixel_origin"],
            src.offsets, out.offsets, mapx.offsets, mapy.offsets)
        if len(launch.parts):
            ws.gpu.launch(_remap_gpu.__file__, launch.kernel, launch.grid, launch.block,
                          (src, out, mapx, mapy, launch.parts, launch.shift, launch.interp))


@_registry.register
class Resize(_gpu_only.GpuOnly):
    schema = Schema(
        "experimental.resize", inputs=1, outputs=lambda args: 2 if args.get("save_attrs") else 1,
        devices=("gpu",), cpu=False,
        doc=_gpu_only.gpu_doc("Resizes images, as fn.resize does (same arguments, sizes, "
                              "filters and values: fn.resize's GPU kernels, resize.cu).",
                              kernel=True),
        args=_gpu_only.as_declared([
            *_resize_size.size_args(),
            Arg("save_attrs", T.BOOL, False,
                doc="Add a second output: the input's spatial shape (int32) per sample."),
            Arg("image_type", T.IMAGE_TYPE, None,
                deprecated="The argument `image_type` is no longer used and will be removed "
                           "in a future release."),
            *_resize_common.filter_args(),
        ]))

    def setup(self):
        super().setup()
        # fn.resize's operator on this operator's spec (errors name experimental.resize): its
        # size logic, plan and run_gpu (_resize_gpu.run_plan), found through the registry
        self._resize = _registry.get("resize")(self.spec)
        self._resize.setup()

    def infer(self, ws):
        return self._resize.infer(ws)

    def run_gpu(self, ws, plan):
        self._resize.run_gpu(ws, plan)
