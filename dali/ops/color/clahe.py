"""fn.clahe: contrast limited adaptive histogram equalisation of uint8 HWC images.

DALI's CPU operator runs OpenCV's CLAHE; so does this one, bit for bit, in the nogil batch
kernel `dali._ext.kernels.clahe` (the algorithm is described in clahe.h): one channel images
are equalised as they are, RGB images either channel by channel (`luma_only=False`) or, by
default, on the L channel of OpenCV's 8-bit CIE Lab conversion, converted back to RGB
afterwards.  The two colour conversions are OpenCV's (cv2.cvtColor, one call for a batch of
images of one shape).  `bins` has no effect on the CPU, in DALI as here: 256 bins.

On the GPU, channels equalised on their own (grayscale images, RGB ones with
`luma_only=False`) run `clahe.cu`: one thread per channel and tile builds its table, then one
per element blends, the CPU's values bit for bit.  A batch with RGB images and `luma_only`
(OpenCV's Lab conversions have no kernel yet) is downloaded, computed by the CPU path and
uploaded.  Either way the values are the CPU's (OpenCV's), not those of DALI's GPU kernel;
`bins` is ignored there too.
"""

from __future__ import annotations

import cv2
import numpy as np

from dali import _operator, _registry, tensors
from dali._ext.kernels import clahe as _kernel
from dali._gpu import host
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _gpu_program, _layouts
from dali.ops.color import _clahe_gpu


@_registry.register
class Clahe(_operator.Operator):
    schema = Schema(
        "clahe", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Contrast Limited Adaptive Histogram Equalization (CLAHE).\n\n"
            "The image is divided into `tiles_x` x `tiles_y` tiles whose histograms are "
            "clipped and equalised; each pixel blends the lookup tables of its four nearest "
            "tiles bilinearly (OpenCV's algorithm).  Takes grayscale (1-channel) and RGB "
            "(3-channel) uint8 images in HWC layout; for RGB, by default only the luminance "
            "(L of CIE Lab) is equalised.",
        args=[Arg("tiles_x", T.INT32, REQUIRED,
                  doc="Number of tiles along the image width. Must be positive."),
              Arg("tiles_y", T.INT32, REQUIRED,
                  doc="Number of tiles along the image height. Must be positive."),
              Arg("clip_limit", T.FLOAT, REQUIRED,
                  doc="Relative clip limit: a tile's histogram bins are clipped at "
                      "`clip_limit * tile_area / bins` (at least 1); 0 or less: no clipping."),
              Arg("bins", T.INT32, 256,
                  ignored="256 bins always: DALI's CPU operator ignores it too, and the GPU "
                          "backend here computes the CPU's values",
                  doc="Number of histogram bins (GPU only)."),
              Arg("luma_only", T.BOOL, True,
                  doc="For RGB inputs, apply CLAHE to the luminance (L of CIE Lab) only; "
                      "otherwise to each channel independently.")])

    def setup(self):
        for name in ("tiles_x", "tiles_y"):
            if self.args[name] < 1:
                raise self.error(f"`{name}` must be positive, got {self.args[name]}.")

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        layout = _layouts.image_layout(self, tl, ("HWC",))
        if storage.dtype != np.uint8:
            raise self.error("ClaheCPU currently supports only uint8 input.", TypeError)
        channels = np.asarray(storage.shapes)[:, 2]
        for i in np.flatnonzero((channels != 1) & (channels != 3)):
            raise ws.sample_error(int(i), "ClaheCPU supports 1 or 3 channels.")
        shapes = storage.shapes
        return _operator.Plan([_operator.OutputDesc(shapes, np.uint8, layout, 3)])

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        if self.args["luma_only"] and (np.asarray(src.shapes)[:, 2] == 3).any():
            self._luma_on_host(ws, plan)
            return
        _gpu_program.run(ws.gpu, _clahe_gpu.program(
            src.shapes, src.offsets, out.offsets, self.args["tiles_x"], self.args["tiles_y"],
            self.args["clip_limit"]), src, out)

    def _luma_on_host(self, ws, plan):
        """The CPU path on a host copy of the input, its outputs uploaded."""
        ws.inputs = [tensors.TensorListCPU._wrap(ws.input_storage(0).to_host(),
                                                 ws.inputs[0].layout())]
        host.run_on_host(self, ws, plan)

    def run_cpu(self, ws, plan):
        args = (self.args["tiles_x"], self.args["tiles_y"], self.args["clip_limit"])
        images, outs = ws.input_samples(0), ws.output_samples(0)
        if not self.args["luma_only"]:
            _kernel.clahe_batch(ws.thread_pool, images, outs, True, *args)
            return
        storage = ws.input_storage(0)
        uniform = storage.uniform_shape
        if uniform is not None and uniform[2] == 3 and 0 not in uniform and storage.is_contiguous:
            # one image of all the batch's rows for each colour conversion
            w = uniform[1]
            lab = cv2.cvtColor(storage.dense().reshape(-1, w, 3), cv2.COLOR_RGB2Lab)
            labs = list(lab.reshape(-1, *uniform))
            _kernel.clahe_batch(ws.thread_pool, labs, labs, False, *args)
            cv2.cvtColor(lab, cv2.COLOR_Lab2RGB, dst=ws.outputs[0].dense().reshape(-1, w, 3))
            return
        rgb = [x.shape[2] == 3 and x.size > 0 for x in images]    # (empty ones: no cvtColor)
        labs = [cv2.cvtColor(x, cv2.COLOR_RGB2Lab) if c else x for x, c in zip(images, rgb,
                                                                               strict=True)]
        dsts = [lab if c else o for c, lab, o in zip(rgb, labs, outs, strict=True)]
        _kernel.clahe_batch(ws.thread_pool, labs, dsts, False, *args)
        for c, lab, o in zip(rgb, labs, outs, strict=True):
            if c:
                cv2.cvtColor(lab, cv2.COLOR_Lab2RGB, dst=o)
