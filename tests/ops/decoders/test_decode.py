"""The shared decode path (dali.ops.decoders._decode): decoding a window at a reduced DCT scale
for operators that resize next."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dali.ops.decoders import _decode
from dali.types import DALIImageType as Image

from . import images


def test_scale_for_keeps_the_window_at_least_the_output_size():
    assert _decode.scale_for(400, 400, 224, 224) == 1
    assert _decode.scale_for(448, 500, 224, 224) == 2
    assert _decode.scale_for(1000, 900, 224, 224) == 4
    assert _decode.scale_for(2000, 1800, 224, 224) == 8
    assert _decode.scale_for(100, 100, 224, 224) == 1


@pytest.mark.parametrize("scale", [1, 2, 4, 8])
def test_kernel_jpegs_decode_the_scaled_window(scale):
    data = images.photo()
    batch = _decode.read_headers([data], Image.RGB)
    flag = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
            8: cv2.IMREAD_REDUCED_COLOR_8}[scale]
    reduced = cv2.imdecode(data, flag)[:, :, ::-1]
    window = (37, 50, 201, 150)
    out, roi = _decode.decode_scaled(batch, 0, window, scale)
    top, left = 37 // scale, 50 // scale
    assert out.shape[:2] == (-(-238 // scale) - top, -(-200 // scale) - left)
    np.testing.assert_allclose(roi, (37 / scale - top, 50 / scale - left,
                                     238 / scale - top, 200 / scale - left))
    diff = np.abs(out.astype(int) - reduced[top:top + out.shape[0], left:left + out.shape[1]])
    assert diff.max() <= (0 if scale == 1 else 1)


@pytest.mark.parametrize("data", [images.encode(".png", images.rgb(120, 90)),
                                  images.with_orientation("JPEG", 6, images.rgb(120, 90))])
def test_other_images_are_decoded_whole_and_shrunk(data):
    batch = _decode.read_headers([data], Image.RGB)
    full = images.opencv_reference(data, "RGB")
    out, roi = _decode.decode_scaled(batch, 0, (10, 20, 40, 30), 2)
    shrunk = cv2.resize(full, (-(-full.shape[1] // 2), -(-full.shape[0] // 2)),
                        interpolation=cv2.INTER_AREA)
    np.testing.assert_array_equal(out, shrunk[5:25, 10:25])
    assert roi == (0.0, 0.0, 20.0, 15.0)


def test_broken_headers_name_the_sample():
    with pytest.raises(_decode.SampleHeaderError, match="unknown or unsupported") as e:
        _decode.read_headers([images.photo(), np.frombuffer(b"nope", np.uint8)], Image.RGB)
    assert e.value.index == 1
