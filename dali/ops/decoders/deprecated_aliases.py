"""DALI's deprecated names of the image decoders, kept so that older pipelines run unchanged:
`fn.image_decoder*` (the names before DALI 1.0), `fn.experimental.decoders.image*` and
`fn.experimental.peek_image_shape`.  Each is the operator it stands for under another name,
and warns (DeprecationWarning) when a pipeline using it is built."""

from __future__ import annotations

import dataclasses
import warnings

from dali import _registry
from dali.ops.decoders import image, image_crop, image_random_crop, image_slice
from dali.ops.decoders import peek_image_shape as peek


def _alias(name, impl, why):
    target = impl.schema
    note = (f"Deprecated alias of `fn.{target.name}` ({why}); use that instead.\n\n")

    def setup(self):
        warnings.warn(f"`dali.fn.{name}` is now deprecated. Use `dali.fn.{target.name}` "
                      "instead.", DeprecationWarning, stacklevel=2)
        impl.setup(self)

    schema = dataclasses.replace(target, name=name, class_name=None, doc=note + target.doc)
    cls = type(schema.class_name, (impl,), {"schema": schema, "setup": setup,
                                            "__module__": __name__,
                                            "__doc__": f"Deprecated `fn.{name}`."})
    return _registry.register(cls)


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
