"""Header parsing (dali.ops.decoders._formats) against the decoded images."""

from __future__ import annotations

import struct

import cv2
import decoder_images as images
import numpy as np
import pytest

from dali.ops.decoders import _formats


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


def _tiff(entries):
    """A little-endian TIFF whose IFD holds (tag, type, value) entries."""
    ifd = struct.pack("<H", len(entries)) + b"".join(
        struct.pack("<HHII", tag, kind, 1, value) for tag, kind, value in entries)
    return b"II*\x00" + struct.pack("<I", 8) + ifd + b"\x00" * 4


def _png_size(width, height):
    data = bytearray(images.variants()["png"])
    data[16:24] = struct.pack(">II", width, height)
    return bytes(data)


@pytest.mark.parametrize("data, message", [
    (_png_size(0, 5), "broken PNG header: it declares an image of 0 x 5 pixels"),
    (_png_size(2**32 - 1, 5), "broken PNG header: it declares an image of 4294967295 x 5"),
    (b"P5\n99999999999 1\n255\n", "broken PNM header"),
    (b"P5\n" + b"9" * 5000 + b" 1\n255\n", "broken PNM header"),
    (b"P7\nWIDTH -5\nHEIGHT 2\nDEPTH 3\nENDHDR\n", "declares an image of -5 x 2 pixels"),
    (b"P7\nWIDTH 5\nHEIGHT 2\nDEPTH 0\nENDHDR\n", "broken PNM header: it declares 0 channels"),
    (b"P7\nWIDTH 5\nHEIGHT 2\nENDHDR\n", "truncated or broken PNM header"),
    (b"P7\nWIDTH 5\nHEIGHT 2", "truncated or broken PNM header"),
    (b"P7\nWIDTH 1" + b"0" * 40 + b"\nENDHDR\n", r"broken PNM header \(WIDTH is not a size\)"),
    (_tiff([(256, 4, 8), (257, 4, 8), (277, 3, 65535)]), "TIFF header: it declares 65535 chan"),
    (_tiff([(256, 4, 0), (257, 4, 8)]), "TIFF header: it declares an image of 0 x 8 pixels"),
    (b"\x00\x00\x00\x0cjP  \r\n\x87\n" + struct.pack(">I4sQ", 1, b"junk", 0),
     r"JPEG 2000 header \(a box shorter than its header\)"),
    (b"\x00\x00\x00\x0cjP  \r\n\x87\n" + struct.pack(">I4s", 3, b"junk") + b"\x00" * 8,
     r"JPEG 2000 header \(a box shorter than its header\)"),
    (b"\xff\x4f\xff\x51\x00\x29\x00\x00" + struct.pack(">IIII", 10, 10, 20, 0) + b"\x00" * 24,
     "JP2 header: it declares an image of -10 x 10 pixels"),
    (b"BM" + b"\x00" * 12 + struct.pack("<IiiHH", 40, -3, 4, 1, 24) + b"\x00" * 30,
     "BMP header: it declares an image of -3 x 4 pixels"),
])
def test_absurd_headers_are_header_errors_naming_the_format(data, message):
    with pytest.raises(_formats.HeaderError, match=message):
        _formats.read_header(np.frombuffer(data, np.uint8))


@pytest.mark.parametrize("data, message", [
    (_png_size(10, 0x7F000C), r"PNG data of \d+ bytes is too short for the 10 x 8323084 image "
                              r"its header declares \(it needs at least \d+ bytes\)"),
    (b"BM" + b"\x00" * 12 + struct.pack("<IiiHHI", 40, 1000, 1000, 1, 24, 0) + b"\x00" * 30,
     "BMP data of 64 bytes is too short for the 1000 x 1000 image .* at least 3000000 bytes"),
    (b"P6\n100 100\n255\n" + b"\x00" * 100, "PNM data of 115 bytes .* at least 30000 bytes"),
    (b"P7\nWIDTH 10\nHEIGHT 10\nDEPTH 2\nMAXVAL 65535\nENDHDR\n",
     "PNM data of 50 bytes .* at least 400 bytes"),
])
def test_data_too_short_for_the_declared_image(data, message):
    with pytest.raises(_formats.HeaderError, match=message):
        _formats.read_header(np.frombuffer(data, np.uint8))


def test_data_size_bound_accepts_real_images():
    for name, data in images.variants().items():
        header = _formats.read_header(data)
        assert len(data) >= header.min_bytes, name
