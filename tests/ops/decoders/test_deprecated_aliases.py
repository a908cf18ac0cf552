"""DALI's deprecated decoder names: the same operators, warning when a pipeline is built."""

from __future__ import annotations

import decoder_images as images
import numpy as np
import pytest

from dali import fn, ops, pipeline_def

ALIASES = [
    ("image_decoder", "decoders.image", {}),
    ("image_decoder_crop", "decoders.image_crop", {"crop": (50, 60)}),
    ("image_decoder_random_crop", "decoders.image_random_crop", {"seed": 5}),
    ("image_decoder_slice", "decoders.image_slice", {"start": [3, 5], "shape": [20, 30]}),
    ("experimental.decoders.image", "decoders.image", {}),
    ("experimental.decoders.image_crop", "decoders.image_crop", {"crop": (50, 60)}),
    ("experimental.decoders.image_random_crop", "decoders.image_random_crop", {"seed": 5}),
    ("experimental.decoders.image_slice", "decoders.image_slice", {"end": [30, 20]}),
    ("experimental.peek_image_shape", "peek_image_shape", {}),
]


def _get(root, path):
    for part in path.split("."):
        root = getattr(root, part)
    return root


@pytest.mark.parametrize("alias, target, kwargs", ALIASES)
def test_alias_equals_its_target_and_warns(alias, target, kwargs):
    data = list(images.photos().values())[:3]

    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: data, batch=True)
        return _get(fn, alias)(x, **kwargs), _get(fn, target)(x, **kwargs)

    p = pipe()
    with pytest.warns(DeprecationWarning, match=f"`dali.fn.{alias}` is now deprecated. Use "
                                                f"`dali.fn.{target}` instead"):
        p.build()
    old, new = p.run()
    for i in range(3):
        np.testing.assert_array_equal(np.array(old[i]), np.array(new[i]))
    assert _get(fn, alias).__doc__.startswith(f"Deprecated alias of `fn.{target}`")


def test_class_api_names():
    assert ops.ImageDecoder.schema.name == "image_decoder"
    assert ops.ImageDecoderRandomCrop.schema.random
    assert ops.experimental.decoders.ImageSlice.schema.name == "experimental.decoders.image_slice"
    assert ops.experimental.PeekImageShape.schema.name == "experimental.peek_image_shape"
