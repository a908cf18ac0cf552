"""DALI's deprecated names of the image decoders, kept so that older pipelines run unchanged:
`fn.image_decoder*` (the names before DALI 1.0), `fn.experimental.decoders.image*` and
`fn.experimental.peek_image_shape`.  Each is the operator it stands for under another name,
and warns (DeprecationWarning) when a pipeline using it is built."""

from __future__ import annotations

import functools

from dali.ops import _aliases
from dali.ops.decoders import image, image_crop, image_random_crop, image_slice
from dali.ops.decoders import peek_image_shape as peek

_alias = functools.partial(_aliases.deprecated_alias, module=__name__)


_RENAMED = "the decoders moved to `fn.decoders` in DALI 1.0"
_MOVED = "its features moved out of `experimental`"
ALIASES = [
    _alias("image_decoder", image.Image, _RENAMED),
    _alias("image_decoder_crop", image_crop.ImageCrop, _RENAMED),
    _alias("image_decoder_random_crop", image_random_crop.ImageRandomCrop, _RENAMED),
    _alias("image_decoder_slice", image_slice.ImageSlice, _RENAMED),
    _alias("experimental.decoders.image", image.Image, _MOVED),
    _alias("experimental.decoders.image_crop", image_crop.ImageCrop, _MOVED),
    _alias("experimental.decoders.image_random_crop", image_random_crop.ImageRandomCrop,
           _MOVED),
    _alias("experimental.decoders.image_slice", image_slice.ImageSlice, _MOVED),
    _alias("experimental.peek_image_shape", peek.PeekImageShape, _MOVED),
]
