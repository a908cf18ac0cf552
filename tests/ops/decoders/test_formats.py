"""Header parsing (dali.ops.decoders._formats) against the decoded images."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dali.ops.decoders import _formats

from . import images


@pytest.mark.parametrize("name", sorted(images.variants()))
def test_header_sizes_match_opencv(name):
    data = images.variants()[name]
    header = _formats.read_header(data)
    assert (header.height, header.width) == cv2.imdecode(data, cv2.IMREAD_GRAYSCALE).shape
    assert header.format == {"jpeg": "jpeg", "png": "png", "bmp": "bmp", "tiff": "tiff",
                             "webp": "webp", "ppm": "pnm", "pgm": "pnm",
                             "jp2": "jp2"}[name.split("_")[0]]


@pytest.mark.parametrize("name, channels", [
    ("jpeg", 3), ("jpeg_gray", 1), ("png", 3), ("png_gray", 1), ("png_rgba", 4),
    ("png_16", 3), ("png_palette", 3), ("png_gray_alpha", 2), ("bmp", 3), ("bmp_gray", 1),
    ("tiff", 3), ("tiff_gray", 1), ("webp", 3), ("webp_lossless", 3), ("webp_rgba", 4),
    ("ppm", 3), ("pgm", 1), ("jp2", 3)])
def test_channels(name, channels):
    assert _formats.read_header(images.variants()[name]).channels == channels


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "TIFF"])
@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation(fmt, orientation):
    header = _formats.read_header(images.with_orientation(fmt, orientation))
    assert header.orientation == orientation
    assert header.oriented_size() == ((47, 61) if orientation >= 5 else (61, 47))


def test_jpeg_header_without_exif_and_raw_codestream():
    assert _formats.read_header(images.photo("photos/chelsea.jpg")) == \
        _formats.Header("jpeg", 213, 320, 3, 1)
    j2k = images.pil_encode(images.Image.fromarray(images.rgb()), "JPEG2000", no_jp2=True)
    assert _formats.read_header(j2k) == _formats.Header("jp2", 61, 47, 3, 1)


@pytest.mark.parametrize("data, message", [
    (b"", "empty data"),
    (b"GIF89a....", "unsupported image format"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "broken PNG header"),
    (bytes(images.variants()["png"][:100]), "truncated PNG data"),
    (b"\xff\xd8\xff\xd9", "no frame header"),
    (bytes(images.variants()["webp"][:20]), "broken WEBP header"),
])
def test_broken_headers(data, message):
    with pytest.raises(_formats.HeaderError, match=message):
        _formats.read_header(np.frombuffer(data, np.uint8))
