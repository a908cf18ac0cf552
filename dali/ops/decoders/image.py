"""fn.decoders.image: decodes encoded images (JPEG, PNG, BMP, TIFF, WebP, PNM, JPEG 2000) into
HWC uint8 (or `dtype`) images, on the pipeline's threads (see `_decode`)."""

from __future__ import annotations

from dali import _registry
from dali._schema import Schema
from dali._types import DALIDataType as T
from dali.ops.decoders import _decode, _window_decoder

DOC_FORMATS = (
    "Supported formats: JPEG, JPEG 2000, TIFF, PNG, BMP, PNM (PBM, PGM, PPM), WebP. The output "
    "is in HWC layout. JPEGs decode with libjpeg-turbo (accurate integer IDCT, fancy chroma "
    "upsampling), other formats with OpenCV; the EXIF orientation is applied by default.")


def cache_args():
    """The decoder-cache arguments (the ``mixed`` backend's; the CPU decoder has no cache)."""
    return [
        _decode.mixed_only("cache_size", T.INT32, 0, "Size of the decoder cache, in MB."),
        _decode.mixed_only("cache_threshold", T.INT32, 0,
                           "Decoded images larger than this (in bytes) are cached."),
        _decode.mixed_only("cache_type", T.STRING, "",
                           'Cache policy: "threshold" or "largest".'),
        _decode.mixed_only("cache_batch_copy", T.BOOL, True,
                           "Copy cached images with one batched kernel."),
        _decode.mixed_only("cache_debug", T.BOOL, False, "Print cache debug information."),
    ]


@_registry.register
class Image(_window_decoder.WindowDecoder):
    schema = Schema(
        "decoders.image", inputs=1, outputs=1, devices=("cpu", "mixed"),
        doc="Decodes images.\n\n" + DOC_FORMATS + "\n\nThe input is one encoded file per "
            "sample, as 1-D uint8 bytes (e.g. from fn.readers.file).",
        args=[*_decode.decoder_args(), *cache_args()])
