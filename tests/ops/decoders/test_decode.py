"""The shared decode path (dali.ops.decoders._decode): header errors."""

from __future__ import annotations

import decoder_images as images
import numpy as np
import pytest

from dali import fn, pipeline_def
from dali._executor.errors import PipelineError
from dali.ops.decoders import _decode
from dali.types import DALIImageType as Image


def test_broken_headers_name_the_sample():
    with pytest.raises(_decode.SampleHeaderError, match="unknown or unsupported") as e:
        _decode.read_headers([images.photo(), np.frombuffer(b"nope", np.uint8)], Image.RGB)
    assert e.value.index == 1


def test_read_headers_lists_every_broken_header():
    nope = np.frombuffer(b"nope", np.uint8)
    with pytest.raises(_decode.SampleHeaderError) as e:
        _decode.read_headers([images.photo(), nope, images.photo(), nope[:0]], Image.RGB)
    assert e.value.index == 1
    assert [i for i, _ in e.value.failures] == [1, 3]
    assert "empty data" in e.value.failures[1][1]


def _decode_batch(samples, peek=False):
    """Run decoders.image (or peek_image_shape) on `samples`; the PipelineError raised."""
    @pipeline_def(batch_size=len(samples), num_threads=2, device_id=None)
    def pipe():
        data = fn.external_source(source=lambda: list(samples), batch=True)
        return fn.peek_image_shape(data) if peek else fn.decoders.image(data)

    with pytest.raises(PipelineError) as info:
        pipe().run()
    return info.value


def test_first_failing_sample_is_reported_before_a_later_header_error():
    good = images.photo()
    cut = good[:len(good) // 2]                          # a good header, broken pixels
    nope = np.frombuffer(b"nope", np.uint8)
    err = _decode_batch([good, cut, good, nope])
    assert err.sample == 1 and err.failed_samples == (1, 3)
    msg = str(err)
    assert "dali.fn.decoders.image: cannot decode the image:" in msg
    assert "(in sample 1 of the batch)" in msg
    assert "Failing samples of the batch:\n  1: cannot decode the image: " in msg
    assert "\n  3: not a valid image: unknown or unsupported image format" in msg


def test_decode_errors_list_every_failing_sample():
    good = images.photo()
    cut = good[:len(good) // 2]
    err = _decode_batch([good, cut, good, cut, good])
    assert err.sample == 1 and err.failed_samples == (1, 3)


def test_images_over_the_pixel_limit_are_listed_with_broken_headers(monkeypatch):
    monkeypatch.setenv(_decode.MAX_PIXELS_VAR, "100")
    small = images.encode(".png", images.rgb(8, 8))
    large = images.encode(".png", images.rgb(20, 20))
    err = _decode_batch([small, large, np.frombuffer(b"nope", np.uint8)])
    assert err.sample == 1 and err.failed_samples == (1, 2)
    assert "1: the image declares 20 x 20 pixels, more than the limit of 100" in str(err)


def test_peek_image_shape_does_not_decode_to_find_failures():
    good = images.photo()
    err = _decode_batch([good[:len(good) // 2], np.frombuffer(b"nope", np.uint8)], peek=True)
    assert err.sample == 1 and err.failed_samples == (1,)


def test_a_batch_larger_than_memory_names_its_largest_image(monkeypatch):
    monkeypatch.setattr(_decode, "physical_memory", lambda: 1000)
    small = images.encode(".png", images.rgb(8, 8))
    large = images.encode(".png", images.rgb(20, 16))
    err = _decode_batch([small, large, small])
    assert err.sample == 1
    assert ("the decoded batch would take 1344 bytes, more than this machine's 1000 bytes of "
            "memory (the largest image, this one, is 20 x 16 x 3)") in str(err)
