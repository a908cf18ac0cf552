"""fn.jpeg_compression_distortion: JPEG compression artefacts, by a real JPEG round trip.

Each RGB image (each frame of a sequence) is encoded as a JPEG at the sample's `quality`
(clamped to 1..100) and decoded again, the way DALI's CPU operator does it with OpenCV
(imencode: 4:2:0 chroma subsampling, accurate integer DCT, baseline quantisation tables;
imdecode: accurate integer IDCT, fancy upsampling).  The round trips run in one nogil call of
the libjpeg-turbo kernel (`jpeg.round_trip_batch`, equal to OpenCV's bit for bit); a build
without libjpeg-turbo does them with OpenCV, image by image.

On the GPU there is no kernel yet: the input is read on the host (`gpu_host_inputs`), the round
trips run as on the CPU and the outputs are uploaded (`dali._gpu.host.run_on_host`), so the
values are the CPU's (libjpeg's), not those of DALI's GPU kernel.
"""

from __future__ import annotations

import cv2
import numpy as np

from dali import _operator, _registry, _types
from dali._gpu import host
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _layouts

try:
    from dali._ext.kernels import jpeg
except ImportError:                      # built without libjpeg-turbo: OpenCV does the trips
    jpeg = None

LAYOUTS = ("HWC", "FHWC")


@_registry.register
class JpegCompressionDistortion(_operator.Operator):
    schema = Schema(
        "jpeg_compression_distortion", inputs=1, outputs=1, devices=("cpu", "gpu"),
        gpu_host_inputs=(0,),
        doc="Introduces JPEG compression artifacts to RGB images.\n\n"
            "Each image (each frame of a sequence) is encoded as a JPEG with the given `quality` "
            "factor and decoded again: colour is subsampled and 8x8 blocks of DCT coefficients "
            "are quantised, with the artefacts that brings (block edges, ringing, colour "
            "bleeding).  The input is uint8 RGB, HWC or FHWC.",
        args=[Arg("quality", T.INT32, 50, tensor=True,
                  doc="JPEG compression quality from 1 (lowest quality) to 100 (highest "
                      "quality). Any values outside the range 1-100 will be clamped.")])

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        layout = _layouts.image_layout(self, tl, LAYOUTS)
        if storage.dtype != np.uint8:
            name = _types.type_name(_types.dali_type_of(storage.dtype))
            raise self.error(f"Unsupported input type: {name}. Expected uint8 RGB images.",
                             TypeError)
        shapes = np.asarray(storage.shapes).reshape(storage.num_samples, -1)
        for i in np.flatnonzero(shapes[:, -1] != 3):
            raise ws.sample_error(int(i), "Invalid number of channels. Expected a channel-last "
                                  "layout, with 3 channels (RGB), got shape: "
                                  + " x ".join(map(str, shapes[i])))
        for i in np.flatnonzero(shapes.prod(axis=1) == 0):
            raise ws.sample_error(int(i), "Cannot compress an empty image.")
        out_shapes = storage.shapes
        return _operator.Plan([_operator.OutputDesc(out_shapes, np.uint8, layout,
                                                    storage.ndim)])

    def run_gpu(self, ws, plan):
        """The CPU path on the host, its outputs uploaded (no kernel yet)."""
        host.run_on_host(self, ws, plan)

    def run_cpu(self, ws, plan):
        quality = np.clip(ws.arg_array("quality", np.int32), 1, 100).astype(np.int32)
        if ws.input_storage(0).ndim == 3 and ws.input_storage(0).is_contiguous:
            images, outs = ws.input_samples(0), ws.output_samples(0)   # HWC views: no copies
        else:                                                           # frames, or apart
            images, outs, frames = [], [], []
            for x, o in zip(ws.input_samples(0), ws.output_samples(0), strict=True):
                x = np.ascontiguousarray(x).reshape(-1, *x.shape[-3:])
                images.extend(x)
                outs.extend(o.reshape(x.shape))
                frames.append(len(x))
            quality = np.repeat(quality, frames)
        if jpeg is not None:
            jpeg.round_trip_batch(ws.thread_pool, images, outs, quality)
            return
        for x, o, q in zip(images, outs, quality, strict=True):
            ok, buf = cv2.imencode(".jpg", x[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, int(q)])
            if not ok:
                raise self.error("OpenCV could not encode an image", RuntimeError)
            o[...] = cv2.imdecode(buf, cv2.IMREAD_COLOR)[:, :, ::-1]
