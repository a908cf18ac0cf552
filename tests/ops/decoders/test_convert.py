"""Pixel conversions (dali.ops.decoders._convert): orientation, data types, YCbCr."""

from __future__ import annotations

import numpy as np
import pytest

from dali.ops.decoders import _convert


@pytest.mark.parametrize("orientation", range(1, 9))
def test_stored_window_maps_displayed_windows(orientation, rng):
    stored = rng.integers(0, 256, (13, 21, 2)).astype(np.uint8)
    displayed = _convert.orient(stored, orientation)
    assert displayed.shape[:2] == ((21, 13) if orientation >= 5 else (13, 21))
    for _ in range(20):
        h, w = (int(rng.integers(1, n + 1)) for n in displayed.shape[:2])
        y = int(rng.integers(0, displayed.shape[0] - h + 1))
        x = int(rng.integers(0, displayed.shape[1] - w + 1))
        sy, sx, sh, sw = _convert.stored_window(orientation, 13, 21, y, x, h, w)
        np.testing.assert_array_equal(
            _convert.orient(stored[sy:sy + sh, sx:sx + sw], orientation),
            displayed[y:y + h, x:x + w])


def test_orientations_turn_as_exif_says():
    a = np.arange(6).reshape(2, 3, 1)
    np.testing.assert_array_equal(_convert.orient(a, 6)[..., 0], np.rot90(a[..., 0], -1))
    np.testing.assert_array_equal(_convert.orient(a, 8)[..., 0], np.rot90(a[..., 0], 1))
    np.testing.assert_array_equal(_convert.orient(a, 3)[..., 0], np.rot90(a[..., 0], 2))
    np.testing.assert_array_equal(_convert.orient(a, 2)[..., 0], a[:, ::-1, 0])


@pytest.mark.parametrize("src_type, dst_type", [
    (np.uint8, np.uint16), (np.uint8, np.int16), (np.uint8, np.int32), (np.uint8, np.int8),
    (np.uint16, np.uint8), (np.uint16, np.int16), (np.uint16, np.uint32)])
def test_convert_scales_through_a_float32_fraction(src_type, dst_type, rng):
    src_max, dst_max = np.iinfo(src_type).max, np.iinfo(dst_type).max
    src = rng.integers(0, src_max + 1, (7, 9, 3)).astype(src_type)
    src.flat[:2] = [0, src_max]
    dst = np.empty(src.shape, dst_type)
    _convert.convert(src, dst)
    frac = src.astype(np.float32) * np.float32(1 / src_max) * np.float32(dst_max)
    expected = np.minimum(np.floor(frac.astype(np.float64) + 0.5), dst_max)
    np.testing.assert_array_equal(dst, expected.astype(dst_type))
    assert dst.flat[0] == 0 and dst.flat[1] == dst_max


def test_convert_rounds_ties_away_from_zero():
    src = np.array([[[1]]], np.uint16)          # 1 * 32767/65535 ~ 0.49999 -> 0
    dst = np.empty(src.shape, np.int16)
    _convert.convert(np.array([[[32768 + 1]]], np.uint16), dst)
    assert dst.item() == 16384
    _convert.convert(src, dst)
    assert dst.item() == 0


def test_ycbcr_of_gray_and_primaries():
    rgb = np.array([[[0, 0, 0], [255, 255, 255], [128, 128, 128], [255, 0, 0]]], np.uint8)
    out = np.empty(rgb.shape, np.uint8)
    _convert.rgb_to_ycbcr(rgb, out)
    assert out[0, :3].tolist() == [[16, 128, 128], [235, 128, 128], [126, 128, 128]]
    assert out[0, 3].tolist() == [81, 90, 240]
    f = np.empty(rgb.shape, np.float32)
    _convert.rgb_to_ycbcr(rgb, f)
    np.testing.assert_allclose(f[0, 0], [16 / 256, 0.5, 0.5], atol=1e-7)
