"""Pixel conversions after decoding: EXIF orientation, YCbCr and the output data type.

Orientation: EXIF value o says how the stored image is turned for display (2: mirrored, 3:
turned 180 degrees, 4: flipped, 5: transposed, 6: turned 90 degrees clockwise, 7: transverse,
8: turned 90 degrees counter-clockwise).  `stored_window` maps a window of the displayed image
to the stored image, so a region decoder can decode just that part and `orient` it.

YCbCr is ITU-R BT.601 with studio swing, computed from the decoded RGB in the output type's
range, as DALI does: the RGB values are scaled to the output type (not rounded), then
Y = Kr' R + Kg' G + Kb' B + 16/256 * range, Cb and Cr likewise around range / 2 (range: 256 for
uint8, 65536 for uint16, 1 for float), in float32, rounded half away from zero.  This is exact
for uint8, int8 and float outputs; with wider integer types float32 rounding may differ from
DALI's by one unit (in the last place of the float32 value).

Data types: values are scaled to the dynamic range of the output type as DALI does, through a
float32 fraction of the input's maximum: out = saturate(round(v * float32(1 / in_max) *
float32(out_max))) for integer outputs (rounding half away from zero), v * float32(1 / in_max)
for float.
"""

from __future__ import annotations

import numpy as np

_F32 = np.float32
_KR, _KB = 0.299, 0.114
_KG = 1 - _KR - _KB
_YCBCR = np.array([[_KR, _KG, _KB],
                   [-_KR / (1 - _KB) / 2, -_KG / (1 - _KB) / 2, 0.5],
                   [0.5, -_KG / (1 - _KR) / 2, -_KB / (1 - _KR) / 2]]) * \
    np.array([[219.0], [224.0], [224.0]]) / 255.0


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
    """Write the YCbCr of RGB pixels `rgb` (uint8 or uint16, HWC) into `out` (HWC, an integer
    type or float32)."""
    to_range = _F32(_max(out.dtype) / _max(rgb.dtype))
    value_range = 1.0 if out.dtype.kind == "f" else float(_max(out.dtype)) + 1
    x = [rgb[:, :, k].astype(_F32) * to_range for k in range(3)]
    for k, offset in enumerate((value_range * 16 / 256, value_range / 2, value_range / 2)):
        c = _YCBCR[k].astype(_F32)
        _store(((c[0] * x[0] + c[1] * x[1]) + c[2] * x[2]) + _F32(offset), out[:, :, k])


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
    frac = src.astype(_F32)
    if src.dtype.kind != "f":
        frac *= _F32(1.0 / _max(src.dtype))
    if dst.dtype.kind != "f":
        frac *= _F32(_max(dst.dtype))
    _store(frac, dst)


def _max(dtype):
    return 1.0 if dtype.kind == "f" else np.iinfo(dtype).max


def _store(values, dst):
    """float32 `values` into `dst`: as they are for float, else rounded half away from zero
    (they are not negative) and saturated."""
    if dst.dtype.kind == "f":
        dst[...] = values
        return
    rounded = np.floor(values.astype(np.float64) + 0.5)
    np.clip(rounded, 0, np.iinfo(dst.dtype).max, out=rounded)
    dst[...] = rounded
