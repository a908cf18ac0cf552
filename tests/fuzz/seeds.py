"""Seed images: one or two tiny images of each format the decoders read, made in code."""

from __future__ import annotations

import io

import cv2
import numpy as np
from PIL import Image


def _pixels(h, w, c):
    """A deterministic gradient with some texture (so compressed data is not trivial)."""
    y, x = np.mgrid[:h, :w]
    planes = [(x * 17 + y * 5 + k * 60) % 256 for k in range(c)]
    return np.stack(planes, axis=-1).astype(np.uint8)


def _cv(ext, image, params=()):
    ok, buf = cv2.imencode(ext, image, list(params))
    assert ok, ext
    return buf.tobytes()


def _pil(image, fmt, **kwargs):
    out = io.BytesIO()
    image.save(out, fmt, **kwargs)
    return out.getvalue()


def seeds():
    """{name: (format, encoded bytes)}; names are stable (regression files refer to them)."""
    rgb = _pixels(12, 10, 3)
    gray = _pixels(9, 7, 1)[:, :, 0]
    rgba = _pixels(6, 8, 4)
    pil_rgb = Image.fromarray(rgb)
    return {
        "baseline.jpg": ("jpeg", _cv(".jpg", rgb, [cv2.IMWRITE_JPEG_QUALITY, 80])),
        "progressive.jpg": ("jpeg", _cv(".jpg", rgb, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])),
        "gray.jpg": ("jpeg", _cv(".jpg", gray)),
        "rgb.png": ("png", _cv(".png", rgb)),
        "rgba.png": ("png", _cv(".png", rgba)),
        "palette.png": ("png", _pil(pil_rgb.convert("P"), "PNG")),
        "16bit.png": ("png", _cv(".png", (rgb.astype(np.uint16) * 257))),
        "rgb.bmp": ("bmp", _cv(".bmp", rgb)),
        "palette.bmp": ("bmp", _pil(pil_rgb.convert("P"), "BMP")),
        "rgb.tif": ("tiff", _pil(pil_rgb, "TIFF")),
        "lzw.tif": ("tiff", _pil(pil_rgb, "TIFF", compression="tiff_lzw")),
        "lossy.webp": ("webp", _pil(pil_rgb, "WEBP", quality=80)),
        "lossless.webp": ("webp", _pil(Image.fromarray(rgba), "WEBP", lossless=True)),
        "rgb.ppm": ("pnm", _cv(".ppm", rgb)),
        "gray.pgm": ("pnm", _cv(".pgm", gray)),
        "rgba.pam": ("pnm", _cv(".pam", rgba, [cv2.IMWRITE_PAM_TUPLETYPE,
                                                cv2.IMWRITE_PAM_FORMAT_RGB_ALPHA])),
    }
