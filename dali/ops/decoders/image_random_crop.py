"""fn.decoders.image_random_crop: decodes a random window of each image (random area fraction
and aspect ratio, chosen like fn.random_resized_crop's) and nothing else: upright JPEGs decode
only the window's rows and iMCU columns."""

from __future__ import annotations

from dali import _registry
from dali._schema import Schema
from dali.ops import _random_window
from dali.ops.decoders import _decode, _window_decoder


@_registry.register
class ImageRandomCrop(_window_decoder.WindowDecoder):
    schema = Schema(
        "decoders.image_random_crop", inputs=1, outputs=1, devices=("cpu", "mixed"),
        random=True,
        doc="Decodes images and randomly crops them.\n\n" + _window_decoder.DOC_FORMATS + "\n\nThe "
            "window's area (a fraction of the image's) is drawn uniformly from `random_area` "
            "and its aspect ratio (width / height) log-uniformly from `random_aspect_ratio`; "
            "the window is chosen as fn.random_resized_crop chooses it, so the same seed gives "
            "both operators the same windows. Only the window is decoded where the format "
            "allows it (JPEG).",
        args=[*_decode.decoder_args(), *_random_window.window_args()])

    def setup(self):
        super().setup()
        self._policy = _random_window.WindowPolicy(self.args)

    def windows(self, ws, batch):
        return self._policy.windows(ws, batch.height, batch.width)
