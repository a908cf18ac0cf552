"""fn.decoders.image_random_crop: decodes a random window of each image (random area fraction
and aspect ratio, chosen like fn.random_resized_crop's) and nothing else: upright JPEGs decode
only the window's rows and iMCU columns."""

from __future__ import annotations

from dali import _operator, _registry
from dali._schema import Schema
from dali.ops import _random_window
from dali.ops.decoders import _decode, image


@_registry.register
class ImageRandomCrop(_operator.Operator):
    schema = Schema(
        "decoders.image_random_crop", inputs=1, outputs=1, devices=("cpu", "mixed"),
        random=True,
        doc="Decodes images and randomly crops them.\n\n" + image.DOC_FORMATS + "\n\nThe "
            "window's area (a fraction of the image's) is drawn uniformly from `random_area` "
            "and its aspect ratio (width / height) log-uniformly from `random_aspect_ratio`; "
            "the window is chosen as fn.random_resized_crop chooses it, so the same seed gives "
            "both operators the same windows. Only the window is decoded where the format "
            "allows it (JPEG).",
        args=[*_decode.decoder_args(), *_random_window.window_args()])

    def setup(self):
        _decode.check_args(self)
        self._policy = _random_window.WindowPolicy(self.args)

    def infer(self, ws):
        self._dtype = _decode.output_dtype(self)
        batch = _decode.inspect(self, ws, self.args["output_type"],
                                self.args["adjust_orientation"])
        self._windows = self._policy.windows(ws, batch.height, batch.width)
        self._batch = batch
        return [_operator.OutputDesc(_decode.output_shapes(batch, self._windows), self._dtype,
                                     "HWC")]

    def run_cpu(self, ws):
        batch, self._batch = self._batch, None
        ws.outputs[0] = _decode.decode(ws, batch, self._windows, ws.outputs[0], self._dtype,
                                       self.args["use_fast_idct"])
