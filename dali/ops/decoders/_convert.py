"""Pixel conversions after decoding: EXIF orientation, YCbCr and the output data type.

Orientation: EXIF value o says how the stored image is turned for display (2: mirrored, 3:
turned 180 degrees, 4: flipped, 5: transposed, 6: turned 90 degrees clockwise, 7: transverse,
8: turned 90 degrees counter-clockwise).  `stored_window` maps a window of the displayed image
to the stored image, so a region decoder can decode just that part and `orient` it.

YCbCr is ITU-R BT.601 with studio swing (Y in 16..235), computed from the decoded RGB as DALI
does:  Y = 16 + (65.481 R + 128.553 G + 24.966 B) / 255, Cb = 128 + (-37.797 R - 74.203 G +
112 B) / 255, Cr = 128 + (112 R - 93.786 G - 18.214 B) / 255, rounded to nearest.

Data types: values are scaled to the dynamic range of the output type as DALI does, through a
float32 fraction of the input's maximum: out = saturate(round(v * float32(1 / in_max) *
float32(out_max))) for integer outputs, v * float32(1 / in_max) for float.  (With these
factors none of the products is a tie, so the rounding mode does not matter.)
"""

from __future__ import annotations

import numpy as np

_F32 = np.float32
_YCBCR = np.array([[65.481, 128.553, 24.966],
                   [-37.797, -74.203, 112.0],
                   [112.0, -93.786, -18.214]]) / 255.0
_YCBCR_OFFSET = np.array([16.0, 128.0, 128.0])


def orient(a, orientation):
    """The displayed image of stored image `a` (HWC) with EXIF `orientation` (a view)."""
    if orientation <= 1:
        return a
    if orientation == 2:
        return a[:, ::-1]
    if orientation == 3:
        return a[::-1, ::-1]
    if orientation == 4:
        return a[::-1]
    t = a.transpose(1, 0, 2)
    if orientation == 5:
        return t
    if orientation == 6:
        return t[:, ::-1]
    if orientation == 7:
        return t[::-1, ::-1]
    return t[::-1]


def stored_window(orientation, stored_h, stored_w, y, x, h, w):
    """The (y, x, h, w) window of the stored image that `orient` turns into window (y, x, h, w)
    of the displayed image."""
    if orientation <= 1:
        return y, x, h, w
    if orientation == 2:
        return y, stored_w - x - w, h, w
    if orientation == 3:
        return stored_h - y - h, stored_w - x - w, h, w
    if orientation == 4:
        return stored_h - y - h, x, h, w
    if orientation == 5:
        return x, y, w, h
    if orientation == 6:
        return stored_h - x - w, y, w, h
    if orientation == 7:
        return stored_h - x - w, stored_w - y - h, w, h
    return x, stored_w - y - h, w, h


def rgb_to_ycbcr(rgb, out):
    """Write the YCbCr of uint8 RGB pixels `rgb` (..., 3) into uint8 `out` (may be `rgb`)."""
    ycc = rgb.reshape(-1, 3).astype(np.float64) @ _YCBCR.T
    ycc += _YCBCR_OFFSET
    np.rint(ycc, out=ycc)
    np.clip(ycc, 0, 255, out=ycc)
    out.reshape(-1, 3)[...] = ycc


def to_uint8(a):
    """`a` (uint8, uint16 or float in [0, 1]) as uint8, scaled like `convert`."""
    if a.dtype == np.uint8:
        return a
    out = np.empty(a.shape, np.uint8)
    convert(a, out)
    return out


def convert(src, dst):
    """Write `src` (uint8, uint16 or float in [0, 1]) into `dst` (an integer type or float32),
    scaled to its dynamic range."""
    if src.dtype == dst.dtype:
        dst[...] = src
        return
    if src.dtype.kind == "f":
        frac = src.astype(_F32)
    else:
        frac = src.astype(_F32) * _F32(1.0 / np.iinfo(src.dtype).max)
    if dst.dtype.kind == "f":
        dst[...] = frac
        return
    info = np.iinfo(dst.dtype)
    values = (frac * _F32(info.max)).astype(np.float64)
    np.rint(values, out=values)
    np.clip(values, max(info.min, 0), info.max, out=values)
    dst[...] = values
