"""fn.decoders.image: decodes encoded images (JPEG, PNG, BMP, TIFF, WebP, PNM, JPEG 2000) into
HWC uint8 (or `dtype`) images, on the pipeline's threads (see `_decode`)."""

from __future__ import annotations

from dali import _registry
from dali._schema import Schema
from dali.ops.decoders import _decode, _window_decoder


@_registry.register
class Image(_window_decoder.WindowDecoder):
    schema = Schema(
        "decoders.image", inputs=1, outputs=1, devices=("cpu", "mixed"),
        doc="Decodes images.\n\n" + _window_decoder.DOC_FORMATS + "\n\nThe input is one "
            "encoded file per sample, as 1-D uint8 bytes (e.g. from fn.readers.file).",
        args=[*_decode.decoder_args(), *_window_decoder.cache_args()])
