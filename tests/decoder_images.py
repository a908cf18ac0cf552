"""Encoded test images for the decoder tests: the photos in dali/data/images and variants made
with OpenCV and Pillow (formats, gray, alpha, 16-bit, progressive, EXIF orientation)."""

from __future__ import annotations

import functools
import io
import pathlib

import cv2
import numpy as np
import pytest
from PIL import Image

import dali
from dali.ops.decoders import _decode

ROOT = pathlib.Path(dali.__file__).parent / "data" / "images"

# Behaviour of dali's libjpeg-turbo kernel (DALI's): without it, OpenCV decodes JPEGs.
needs_jpeg_kernel = pytest.mark.skipif(
    _decode.jpeg is None, reason="dali was built without libjpeg-turbo: OpenCV decodes JPEGs")


def as_array(data: bytes) -> np.ndarray:
    return np.frombuffer(data, np.uint8)


@functools.cache
def photos():
    """{relative path: encoded bytes} of every JPEG in dali/data/images."""
    return {str(p.relative_to(ROOT)): as_array(p.read_bytes())
            for p in sorted(ROOT.glob("**/*.jpg"))}


def photo(name="photos/astronaut.jpg"):
    return photos()[name]


@functools.cache
def rgb(h=61, w=47):
    """An RGB crop of a photo (uint8 HWC)."""
    return np.ascontiguousarray(cv2.imdecode(photo(), cv2.IMREAD_COLOR_RGB)[:h, :w])


def encode(ext, image_rgb, params=()):
    """`image_rgb` (RGB/gray/RGBA) encoded by OpenCV."""
    image = image_rgb
    if image.ndim == 3 and image.shape[2] == 3:
        image = image[:, :, ::-1]
    elif image.ndim == 3 and image.shape[2] == 4:
        image = image[:, :, [2, 1, 0, 3]]
    ok, buf = cv2.imencode(ext, np.ascontiguousarray(image), list(params))
    assert ok
    return as_array(buf.tobytes())


def pil_encode(image: Image.Image, fmt, **kwargs):
    out = io.BytesIO()
    image.save(out, fmt, **kwargs)
    return as_array(out.getvalue())


def with_orientation(fmt, orientation, image=None):
    """An image (RGB) with EXIF orientation `orientation`, as JPEG/PNG/WEBP/TIFF."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    pil = Image.fromarray(rgb() if image is None else image)
    return pil_encode(pil, fmt, exif=exif.tobytes(), **({"quality": 90} if fmt == "JPEG" else {}))


@functools.cache
def variants():
    """{name: encoded bytes} covering the formats and color layouts the decoders handle."""
    img = rgb()
    gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    alpha = (np.arange(img.shape[0] * img.shape[1]) % 256).astype(np.uint8).reshape(gray.shape)
    rgba = np.dstack([img, alpha])
    deep = np.random.default_rng(0).integers(0, 65536, img.shape).astype(np.uint16)
    return {
        "jpeg": encode(".jpg", img),
        "jpeg_gray": encode(".jpg", gray),
        "jpeg_progressive": encode(".jpg", img, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]),
        "jpeg_444": encode(".jpg", img, [cv2.IMWRITE_JPEG_SAMPLING_FACTOR,
                                         cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444]),
        "png": encode(".png", img),
        "png_gray": encode(".png", gray),
        "png_rgba": encode(".png", rgba),
        "png_16": encode(".png", deep),
        "png_palette": pil_encode(Image.fromarray(img).convert("P"), "PNG"),
        "png_gray_alpha": pil_encode(Image.fromarray(np.dstack([gray, alpha]), "LA"), "PNG"),
        "bmp": encode(".bmp", img),
        "bmp_gray": encode(".bmp", gray),
        "tiff": encode(".tif", img),
        "tiff_gray": pil_encode(Image.fromarray(gray), "TIFF"),
        "webp": encode(".webp", img),
        "webp_lossless": encode(".webp", img, [cv2.IMWRITE_WEBP_QUALITY, 101]),
        "webp_rgba": pil_encode(Image.fromarray(rgba, "RGBA"), "WEBP", quality=80),
        "ppm": encode(".ppm", img),
        "pgm": encode(".pgm", gray),
        "jp2": encode(".jp2", img),
    }


@functools.cache
def cmyk_jpeg():
    """A CMYK JPEG (Adobe, inverted), and its ink values (C, M, Y, K, 0 = no ink)."""
    data = pil_encode(Image.fromarray(rgb()).convert("CMYK"), "JPEG", quality=90)
    return data, np.array(Image.open(io.BytesIO(data.tobytes())))


def opencv_reference(data, output_type):
    """What DALI's decoders give, computed with OpenCV: "RGB", "BGR" or "GRAY" (HWC uint8)."""
    if output_type == "GRAY":
        out = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE | cv2.IMREAD_ANYDEPTH)[:, :, None]
    else:
        out = cv2.imdecode(data, cv2.IMREAD_COLOR | cv2.IMREAD_ANYDEPTH)
        if output_type == "RGB":
            out = out[:, :, ::-1]
    if out.dtype == np.uint16:
        out = np.rint(out.astype(np.float32) * np.float32(1 / 65535) * np.float32(255))
    return out.astype(np.uint8)


def coordinates_png(h, w):
    """A lossless image whose pixels hold their own coordinates (see `read_coordinates`)."""
    yy, xx = np.mgrid[0:h, 0:w]
    rgb = np.stack([yy & 255, xx & 255, (yy >> 8) | ((xx >> 8) << 4)], axis=-1)
    return encode(".png", rgb.astype(np.uint8))


def read_coordinates(a):
    """(y, x) arrays of a decoded `coordinates_png` region."""
    a = a.astype(np.int64)
    return a[..., 0] + ((a[..., 2] & 15) << 8), a[..., 1] + ((a[..., 2] >> 4) << 8)
