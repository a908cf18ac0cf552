"""fn.debayer: demosaicing of single-channel Bayer mosaics into RGB images.

DALI's CPU operator runs OpenCV's demosaicing (cv::cvtColor with COLOR_Bayer*2RGB and its
_EA / _VNG / 2GRAY variants); so does this one.  The default algorithm, "bilinear_ocv", runs in
the nogil batch kernel `dali._ext.kernels.debayer` (OpenCV's bilinear rule, bit for bit: see
debayer.h); "edgeaware_ocv", "vng_ocv" and "gray_ocv" call OpenCV image by image.

`blue_position` (y, x) follows OpenCV's naming, which refers to the 2x2 tile starting at the
sensor's second row and column: blue sits at ((1 + y) % 2, (1 + x) % 2) of the mosaic and red
at (y, x).  It may be given per sample or, for sequences, per frame (`fn.per_frame`).

On the GPU (`debayer.cu`, one thread per output pixel) the bilinear rule runs for
"bilinear_ocv" and for "default_npp" (the GPU default in DALI, whose NPP values this does not
reproduce: it gives OpenCV's, the CPU's); the other algorithms are not implemented there.
"""

from __future__ import annotations

import cv2
import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import debayer as _kernel
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _layouts
from dali.ops.color import _debayer_gpu

LAYOUTS = ("HW", "HWC", "FHW", "FHWC")
ALGORITHMS = ("bilinear_ocv", "edgeaware_ocv", "vng_ocv", "gray_ocv")
# OpenCV's conversion codes by blue position (y, x) and algorithm (bilinear is the kernel's).
_NAMES = {(0, 0): "BayerBG", (0, 1): "BayerGB", (1, 0): "BayerGR", (1, 1): "BayerRG"}
_SUFFIX = {"edgeaware_ocv": "2RGB_EA", "vng_ocv": "2RGB_VNG", "gray_ocv": "2GRAY"}
_CODES = {(pos, alg): getattr(cv2, f"COLOR_{name}{suffix}")
          for pos, name in _NAMES.items() for alg, suffix in _SUFFIX.items()}


@_registry.register
class Debayer(_operator.Operator):
    schema = Schema(
        "debayer", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Performs image demosaicing/debayering: converts single-channel images of a Bayer "
            "colour filter array (uint8 or uint16, HW/HWC/FHW/FHWC with one channel, even "
            "height and width) to RGB images (one channel for \"gray_ocv\").",
        args=[Arg("blue_position", T._INT32_VEC, REQUIRED, tensor=True,
                  doc="The position (y, x) of the blue value in the 2x2 bayer tile, following "
                      "OpenCV's convention of a tile that starts in the second row and column "
                      "of the sensors' matrix: (0, 0) BGGR, (0, 1) GBRG, (1, 0) GRBG, (1, 1) "
                      "RGGB.  Supports per-frame inputs."),
              Arg("algorithm", T.STRING, None,
                  doc="The algorithm inferring the missing colours: \"bilinear_ocv\" (the "
                      "default on the CPU: bilinear interpolation), \"edgeaware_ocv\" "
                      "(edge-aware interpolation), \"vng_ocv\" (Variable Number of Gradients, "
                      "uint8 only), \"gray_ocv\" (grayscale with bilinear interpolation); "
                      "\"default_npp\" is the GPU's and is not supported on the CPU. On the "
                      "GPU, \"bilinear_ocv\" and \"default_npp\" (the default there) both "
                      "give the CPU's bilinear values; the other algorithms are CPU-only.")])

    def setup(self):
        alg = self.args["algorithm"] or "bilinear_ocv"
        if self.spec.device == "gpu":
            if alg not in ("bilinear_ocv", "default_npp"):
                raise self.error(f"The `{alg}` algorithm is not implemented on the GPU in "
                                 "dali (bilinear_ocv and default_npp are).",
                                 NotImplementedError)
            alg = "bilinear_ocv"
        if alg == "default_npp":
            raise self.error("default_npp algorithm is not supported on CPU.", RuntimeError)
        if alg not in ALGORITHMS:
            raise self.error(f"Unsupported debayer algorithm was specified: `{alg}`.",
                             RuntimeError)
        self.algorithm = alg
        # (input shape array, type, layout, Plan) of the last batch: the plan depends only on
        # them (the shape array is the same object while a batch's shapes repeat)
        self._last_plan = None
        self._last_positions = None     # (frames, positions) for a constant blue_position

    def infer(self, ws):
        storage = ws.input_storage(0)
        key = (storage.dtype, ws.inputs[0].layout())
        memo = self._last_plan
        if memo is None or memo[0] is not storage.shapes or memo[1] != key:
            memo = self._last_plan = storage.shapes, key, self._plan(ws)
        return memo[2]

    def _plan(self, ws):
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        layout = _layouts.image_layout(self, tl, LAYOUTS)
        dtype = storage.dtype
        if dtype not in (np.uint8, np.uint16):
            name = _types.type_name(_types.dali_type_of(dtype))
            raise self.error(f"Unsupported input type: {name}; uint8 or uint16 needed.",
                             TypeError)
        if self.algorithm == "vng_ocv" and dtype != np.uint8:
            raise self.error("VNG debayering only supported with UINT8.", TypeError)
        shapes = np.asarray(storage.shapes, np.int64).reshape(storage.num_samples, storage.ndim)
        h, w = layout.index("H"), layout.index("W")
        if layout.endswith("C"):
            for i in np.flatnonzero(shapes[:, -1] != 1):
                raise ws.sample_error(int(i), "The debayer operator expects grayscale (i.e. "
                                      "single channel) images, however the sample has shape "
                                      + " x ".join(map(str, shapes[i])))
        for i in np.flatnonzero((shapes[:, h] % 2 != 0) | (shapes[:, w] % 2 != 0)):
            raise ws.sample_error(int(i), "The height and width of the image to debayer must "
                                  f"be even. However, the sample has shape "
                                  f"{shapes[i, h]} x {shapes[i, w]}.")
        frames = shapes[:, 0] if layout.startswith("F") else np.ones(len(shapes), np.int64)
        channels = 1 if self.algorithm == "gray_ocv" else 3
        out_shapes = np.concatenate(
            [shapes[:, :w + 1], np.full((len(shapes), 1), channels, np.int64)], axis=1)
        out_layout = layout if layout.endswith("C") else layout + "C"
        return _operator.Plan([_operator.OutputDesc(out_shapes, dtype, out_layout,
                                                    len(out_layout))],
                              frames=frames, sizes=shapes[:, [h, w]])

    def _positions(self, ws, frames):
        """The blue position of every frame: an (n_frames, 2) int32 array (remembered for
        the last `frames` when blue_position is a constant)."""
        if ws.is_arg_input("blue_position"):
            return self._frame_positions(ws, frames)
        memo = self._last_positions
        if memo is None or memo[0] is not frames:
            memo = self._last_positions = frames, self._frame_positions(ws, frames)
        return memo[1]

    def _frame_positions(self, ws, frames):
        if not len(frames):
            return np.zeros((0, 2), np.int32)
        rows = ws.arg_rows("blue_position", np.int32)
        if rows is not None and rows.shape[1] == 2:
            pos = np.repeat(rows, frames, axis=0)
        else:
            pos = []
            for i, v in enumerate(ws.arg("blue_position")):
                if v.size == 2 * frames[i] and v.size != 2:
                    pos.append(v.reshape(-1, 2))
                elif v.size == 2:
                    pos.append(np.tile(v.reshape(1, 2), (frames[i], 1)))
                else:
                    raise ws.sample_error(i, "`blue_position` needs 2 values (y, x) per sample "
                                          f"or per frame, got {v.size}")
            pos = np.concatenate(pos) if pos else np.zeros((0, 2), np.int64)
        pos = np.ascontiguousarray(pos, np.int32)
        if ((pos < 0) | (pos > 1)).any():
            y, x = pos[((pos < 0) | (pos > 1)).any(axis=1)][0]
            raise self.error(f"The `blue_position` position must lie within 2x2 tile, got: "
                             f"{y} x {x}.")
        return pos

    @staticmethod
    def _images(plan, src, dst, pos):
        """(src byte offsets, dst byte offsets, sizes) of every image (sample or frame)."""
        if len(pos) == len(plan.frames):          # one image per sample
            return src.offsets, dst.offsets, plan.sizes
        sizes = np.repeat(plan.sizes, plan.frames, axis=0)
        # byte offset of every frame: its sample's, plus the frames before it in the sample
        first = np.repeat(np.cumsum(plan.frames) - plan.frames, plan.frames)
        index = np.arange(len(sizes)) - first
        pixels = sizes[:, 0] * sizes[:, 1] * src.dtype.itemsize
        return (np.repeat(src.offsets, plan.frames) + index * pixels,
                np.repeat(dst.offsets, plan.frames) + index * pixels * 3, sizes)

    def run_gpu(self, ws, plan):
        pos = self._positions(ws, plan.frames)
        src, dst = ws.input_storage(0), ws.outputs[0]
        launch = _debayer_gpu.launch(src.dtype, *self._images(plan, src, dst, pos), pos)
        ws.gpu.launch(_debayer_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, dst, launch.images))

    def run_cpu(self, ws, plan):
        pos = self._positions(ws, plan.frames)
        if self.algorithm == "bilinear_ocv":
            src, dst = ws.input_storage(0).contiguous(), ws.outputs[0]
            _kernel.bilinear_batch(ws.thread_pool, src, dst, *self._images(plan, src, dst, pos),
                                   pos)
            return
        images, outs = [], []
        for x, o in zip(ws.input_samples(0), ws.output_samples(0), strict=True):
            h, w = o.shape[-3:-1]
            images.extend(x.reshape(-1, h, w))
            outs.extend(o.reshape(-1, h, w, o.shape[-1]))
        for x, o, p in zip(images, outs, pos.tolist(), strict=True):
            o[...] = cv2.cvtColor(x, _CODES[tuple(p), self.algorithm]).reshape(o.shape)
