"""fn.equalize: per-channel histogram equalisation of uint8 images and videos.

Each channel of each image (of each frame of a video) is equalised on its own, with OpenCV's
equalizeHist rule, which is what DALI's CPU backend applies: for a channel whose smallest value
`v0` occurs `k` times among `n` pixels, lut[v] = round(float(cdf(v) - k) * 255 / (n - k)),
and a channel of one value is left as it is.  The nogil batch kernel is
`dali._ext.kernels.histogram.equalize_batch`, one work item per sample; on the GPU,
`equalize.cu`: one thread per plane and channel builds its table, then one per element maps.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import histogram as _kernel
from dali._schema import Schema
from dali.ops import _gpu_program, _layouts
from dali.ops.color import _equalize_gpu

LAYOUTS = ("HW", "HWC", "CHW", "FHW", "FHWC", "FCHW")


@_registry.register
class Equalize(_operator.Operator):
    schema = Schema(
        "equalize", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Performs grayscale/per-channel histogram equalization.\n\n"
            "The supported inputs are images and videos of uint8 type, with layouts "
            + ", ".join(LAYOUTS) + ".")

    def setup(self):
        # (shape array, layout, `_planes`) of the last batch: a repeated batch shape is usually
        # the same (read-only) shape array
        self._memo = None

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        if storage.dtype != np.uint8:
            name = _types.type_name(_types.dali_type_of(storage.dtype))
            raise self.error(f"Unsupported input type for equalize operator: {name}. "
                             "Expected input type: `uint8_t`.", TypeError)
        layout = _layouts.image_layout(self, tl, LAYOUTS)
        shapes = storage.shapes
        memo = self._memo
        if memo is None or memo[0] is not storage.shapes or memo[1] != layout:
            memo = self._memo = (storage.shapes, layout, self._planes(storage, layout))
        return _operator.Plan([_operator.OutputDesc(shapes, np.uint8, layout, storage.ndim)],
                              planes=memo[2])

    @staticmethod
    def _planes(storage, layout):
        """(planes, pixels, channels) of every sample."""
        shapes = np.asarray(storage.shapes, np.int64).reshape(storage.num_samples, storage.ndim)
        pixels = shapes[:, layout.index("H")] * shapes[:, layout.index("W")]
        channels = shapes[:, -1] if layout.endswith("C") else np.ones_like(pixels)
        planes = np.prod(shapes, axis=1) // np.maximum(pixels * channels, 1)
        return planes, pixels, channels

    def run_cpu(self, ws, plan):
        _kernel.equalize_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0], *plan.planes)

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        _gpu_program.run(ws.gpu, _equalize_gpu.program(*plan.planes, src.offsets, out.offsets),
                         src, out)
