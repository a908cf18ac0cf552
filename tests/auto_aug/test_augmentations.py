"""dali.auto_aug.augmentations: each augmentation at fixed magnitudes against a NumPy/OpenCV
reference, against goldens recorded with real DALI, and against real DALI itself."""

import json
import pathlib
import warnings

import auto_aug_utils as utils
import cv2
import numpy as np
import pytest

from dali import types
from dali.auto_aug import augmentations as A

GOLDENS = pathlib.Path(__file__).resolve().parents[1] / "goldens" / "auto_aug.npz"
# warp_affine/rotate and filter round float results: a few pixels may differ by one level
TOLERANCE = {"shear_x": 1, "shear_y": 1, "rotate": 1, "sharpness": 1, "translate_x": 1,
             "translate_y": 1}


def magnitudes(aug, num_bins=utils.NUM_BINS):
    lo, hi = aug.mag_range
    return np.linspace(lo, hi, num_bins)


def signed(aug, bins=utils.BINS, signs=utils.SIGNS):
    """The magnitude each sample of `run_augmentation` gets."""
    mags = magnitudes(aug)
    return [mags[b] * (-1 if s and aug.randomly_negate else 1)
            for b, s in zip(bins, signs, strict=True)]


def assert_close(out, ref, tol, max_share=0.01):
    assert out.shape == ref.shape and out.dtype == ref.dtype
    diff = np.abs(out.astype(np.int32) - ref.astype(np.int32))
    assert diff.max() <= tol
    assert (diff > 0).mean() <= (max_share if tol else 0)


def to_u8(values):
    """Rounded half away from zero and saturated, as DALI's float -> uint8 conversions do."""
    return np.clip(np.floor(np.asarray(values) + 0.5), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def imgs():
    return utils.images(seed=7)


# -- NumPy / OpenCV references ------------------------------------------------------------------
def test_posterize(imgs):
    out = utils.run_augmentation("posterize", imgs)
    for o, x, m in zip(out, imgs, signed(A.posterize), strict=True):
        bits = max(1, int(np.round(m)))
        np.testing.assert_array_equal(o, x & np.uint8(256 - 2 ** (8 - bits)))


def test_solarize(imgs):
    out = utils.run_augmentation("solarize", imgs)
    for o, x, thr in zip(out, imgs, signed(A.solarize), strict=True):
        np.testing.assert_array_equal(o, np.where(x < np.float32(thr), x, 255 - x))


def test_solarize_add(imgs):
    out = utils.run_augmentation("solarize_add", imgs)
    for o, x, m in zip(out, imgs, signed(A.solarize_add), strict=True):
        np.testing.assert_array_equal(o, np.where(x < 128, x + np.uint8(m), x).astype(np.uint8))


def test_invert_identity(imgs):
    for o, x in zip(utils.run_augmentation("invert", imgs), imgs, strict=True):
        np.testing.assert_array_equal(o, 255 - x)
    for o, x in zip(utils.run_augmentation("identity", imgs), imgs, strict=True):
        np.testing.assert_array_equal(o, x)


def test_brightness(imgs):
    out = utils.run_augmentation("brightness", imgs)
    for o, x, m in zip(out, imgs, signed(A.brightness), strict=True):
        np.testing.assert_array_equal(o, to_u8(x * np.float32(1 + m)))


def test_contrast(imgs):
    out = utils.run_augmentation("contrast", imgs)
    for o, x, m in zip(out, imgs, signed(A.contrast), strict=True):
        center = (x.reshape(-1, 3).mean(axis=0) * [0.299, 0.587, 0.114]).sum()
        assert_close(o, to_u8(center + (x - center) * (1 + m)), 1)


def test_color_extremes(imgs):
    """Saturation factor 1 keeps the image; factor 0 leaves grey pixels (equal channels)."""
    aug = A.color.augmentation(mag_range=(1, 0), randomly_negate=False, mag_to_param=None)
    one, zero = utils.run_augmentation("color", imgs[:2], bins=(0, 10), signs=(0, 0),
                                       augmentation=lambda _: aug)
    assert_close(one, imgs[0], 1)
    assert np.abs(zero.astype(int) - zero[..., :1].astype(int)).max() <= 1
    assert zero.std() > 0


def test_sharpness(imgs):
    out = utils.run_augmentation("sharpness", imgs)
    for o, x, m in zip(out, imgs, signed(A.sharpness), strict=True):
        kernel = A.sharpness_kernel(m)
        ref = cv2.filter2D(x.astype(np.float32), -1, kernel, borderType=cv2.BORDER_REFLECT_101)
        assert_close(o, to_u8(ref), 1)


def test_equalize(imgs):
    for o, x in zip(utils.run_augmentation("equalize", imgs), imgs, strict=True):
        ref = np.stack([cv2.equalizeHist(np.ascontiguousarray(x[..., c])) for c in range(3)],
                       axis=-1)
        np.testing.assert_array_equal(o, ref)


def test_auto_contrast(imgs):
    flat = np.full((6, 5, 3), 40, np.uint8)
    flat[..., 1] = np.arange(30).reshape(6, 5)
    for o, x in zip(utils.run_augmentation("auto_contrast", [*imgs[:3], flat]),
                    [*imgs[:3], flat], strict=True):
        lo, hi = x.min(axis=(0, 1)), x.max(axis=(0, 1))
        scale = np.where(hi > lo, 255 / np.maximum(hi - lo, 1), 1).astype(np.float32)
        ref = np.where(hi > lo, (x - lo) * scale, x)
        assert_close(o, to_u8(ref), 1)


@pytest.mark.parametrize("name", ["translate_x_no_shape", "translate_y_no_shape"])
@pytest.mark.parametrize("fill_value", [128, None])
def test_translate_whole_pixels(imgs, name, fill_value):
    """Shifts by whole pixels: an exact copy, padded with `fill_value` or the edge pixels."""
    def aug(aa):
        return getattr(aa, name).augmentation(mag_range=(0, 10))

    out = utils.run_augmentation(name, imgs, augmentation=aug, fill_value=fill_value)
    axis = 1 if name.startswith("translate_x") else 0
    for o, x, m in zip(out, imgs, signed(aug(A)), strict=True):
        shift = int(round(m))
        src = np.arange(x.shape[axis]) - shift
        inside = (src >= 0) & (src < x.shape[axis])
        ref = np.take(x, np.clip(src, 0, x.shape[axis] - 1), axis=axis)
        if fill_value is not None:
            mask = inside[None, :, None] if axis == 1 else inside[:, None, None]
            ref = np.where(mask, ref, np.uint8(fill_value))
        np.testing.assert_array_equal(o, ref)


def test_translate_relative_to_shape(imgs):
    """`translate_x` with `shape` shifts by `rel_offset * width`: mag_range (0, 1) over 11 bins
    at bin 10 moves everything out of the canvas."""
    out = utils.run_augmentation("translate_x", imgs, bins=(10, 10, 0, 0), signs=(0, 1, 0, 1))
    assert all((o == 128).all() for o in out[:2])
    for o, x in zip(out[2:], imgs[2:], strict=True):
        np.testing.assert_array_equal(o, x)


@pytest.mark.parametrize("name", ["shear_x", "shear_y"])
def test_shear_nearest(imgs, name):
    """Shear with nearest-neighbour interpolation against OpenCV's warpAffine (inverse map:
    the destination pixel centre shifted by the shear), away from rounding ties."""
    out = utils.run_augmentation(name, imgs, interp_type=types.INTERP_NN, fill_value=0)
    for o, x, s in zip(out, imgs, signed(getattr(A, name)), strict=True):
        h, w = x.shape[:2]
        m = np.array([[1, s, 0], [0, 1, 0]] if name == "shear_x" else [[1, 0, 0], [s, 1, 0]],
                     np.float64)
        yy, xx = np.mgrid[:h, :w] + 0.5
        inv = np.linalg.inv(np.vstack([m, [0, 0, 1]]))
        sx = inv[0, 0] * xx + inv[0, 1] * yy + inv[0, 2]
        sy = inv[1, 0] * xx + inv[1, 1] * yy + inv[1, 2]
        ix, iy = np.floor(sx).astype(int), np.floor(sy).astype(int)
        inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        ref = np.where(inside[..., None], x[np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)], 0)
        far = (np.abs(sx - np.round(sx)) > 1e-3) & (np.abs(sy - np.round(sy)) > 1e-3)
        np.testing.assert_array_equal(o[far], ref[far])


def test_rotate_zero_and_shape(imgs):
    out = utils.run_augmentation("rotate", imgs, bins=(0, 0, 10, 10), signs=(0, 1, 0, 1))
    for o, x in zip(out, imgs, strict=True):
        assert o.shape == x.shape
    np.testing.assert_array_equal(out[0], imgs[0])
    big = A.rotate.augmentation(mag_range=(0, 90))
    rot = utils.run_augmentation("rotate", imgs[1:2], bins=(10,), signs=(0,),
                                 augmentation=lambda _: big, interp_type=types.INTERP_NN)
    np.testing.assert_array_equal(rot[0], np.rot90(imgs[1]))  # 20x20: exact quarter turn


def test_video_frames(imgs):
    """FHWC sequences: every frame transformed like an image."""
    video = np.stack([imgs[1], 255 - imgs[1]])

    def graph(pkg, x):
        return pkg.auto_aug.augmentations.posterize(x, magnitude_bin=3, num_magnitude_bins=11)

    (out,) = utils.run_graph(graph, [[video]], layouts=["FHWC"])
    mask = np.uint8(256 - 2 ** (8 - 1))
    np.testing.assert_array_equal(out[0], video & mask)


# -- goldens recorded with real DALI ------------------------------------------------------------
def golden_cases():
    with np.load(GOLDENS) as g:
        return [(k, name, kwargs) for k, (name, kwargs) in enumerate(json.loads(str(g["cases"])))]


@pytest.mark.parametrize("k,name,kwargs", golden_cases(),
                         ids=[f"{n}-{'-'.join(kw) or 'default'}" for _, n, kw in golden_cases()])
def test_goldens(k, name, kwargs):
    with np.load(GOLDENS) as g:
        imgs = [g[f"input_{i}"] for i in range(4)]
        expected = [g[f"out_{k}_{i}"] for i in range(4)]
    args = {key: getattr(types, v) if key == "interp_type" else v for key, v in kwargs.items()}
    out = utils.run_augmentation(name, imgs, **args)
    base = name.replace("_no_shape", "")
    for o, e in zip(out, expected, strict=True):
        assert_close(o, e, TOLERANCE.get(base, 0))


# -- real DALI ----------------------------------------------------------------------------------
@pytest.mark.oracle
@pytest.mark.parametrize("name", utils.AUGMENTATIONS)
def test_oracle(name):
    pytest.importorskip("nvidia.dali")
    imgs = utils.images(seed=3, shapes=((33, 21), (16, 40), (25, 25), (12, 9)))
    bins, signs = (1, 5, 9, 10), (1, 0, 1, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = utils.run_augmentation(name, imgs, bins, signs, real=True)
    out = utils.run_augmentation(name, imgs, bins, signs)
    base = name.replace("_no_shape", "")
    for o, r in zip(out, ref, strict=True):
        assert_close(o, r, TOLERANCE.get(base, 0))


@pytest.mark.oracle
@pytest.mark.parametrize("name", [n for n in utils.AUGMENTATIONS if not n.startswith("translate_")]
                         + ["translate_x_no_shape"])
def test_oracle_video(name):
    """FHWC videos: every frame transformed as DALI transforms it."""
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(4)
    videos = [np.stack([utils.images(seed=s, shapes=((14, 19),))[0] for s in rng.integers(
        0, 100, 3)]) for _ in range(4)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = utils.run_augmentation(name, videos, real=True, layout="FHWC")
    out = utils.run_augmentation(name, videos, layout="FHWC")
    base = name.replace("_no_shape", "")
    for o, r in zip(out, ref, strict=True):
        assert_close(o, r, TOLERANCE.get(base, 0), max_share=0.02)


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["warp_x_param", "warp_y_param", "shift_enhance_range",
                                  "sharpness_kernel", "sharpness_kernel_shifted",
                                  "poster_mask_uint8", "solarize_add_shift"])
def test_oracle_mag_to_param(name):
    dali_aa = pytest.importorskip("nvidia.dali.auto_aug.augmentations")
    for m in np.concatenate([np.linspace(-3, 11, 57), np.linspace(0, 255, 31)]):
        try:
            ref = np.asarray(getattr(dali_aa, name)(m))
        except Exception:
            with pytest.raises((ValueError, OverflowError)):
                getattr(A, name)(m)
            continue
        out = np.asarray(getattr(A, name)(m))
        assert out.shape == ref.shape
        np.testing.assert_allclose(out.astype(np.float64), ref.astype(np.float64), rtol=1e-6,
                                   atol=1e-6)
