"""The augmentations of the AutoAugment, RandAugment and TrivialAugment suites.

Each is a dali graph fragment decorated with `@augmentation`, using the operators DALI's suite
uses so that the results match it: `warp_affine` (by the matrices `transforms.shear` and
`transforms.translation` give, built with arithmetic: see `_affine`) for shears and
translations, `rotate`, `brightness`, `saturation` (color), `filter` with PIL's
smoothing kernel blended in (sharpness), `equalize`, and element-wise arithmetic for contrast,
posterize, solarize, solarize_add, invert and auto_contrast.  The samples are `uint8` images
(`HWC`) or videos (`FHWC`).
"""

from __future__ import annotations

import numpy as np

import dali
from dali import fn, types
from dali.auto_aug.core.decorator import augmentation

_IDENTITY = np.eye(2, 3, dtype=np.float32)
_AFFINE = {  # row i times the i-th parameter (x, then y) gives the non-identity part
    "shear": np.array([[0, 1, 0], [1, 0, 0]], np.float32),
    "translation": np.array([[0, 0, 1], [0, 0, 1]], np.float32)}
_LUMA = np.array([0.299, 0.587, 0.114], np.float32)
_SMOOTH = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]], np.float32) / 13  # PIL's SMOOTH filter


# -- magnitude -> parameter ---------------------------------------------------------------------
def warp_x_param(magnitude):
    """`[magnitude, 0]`: a shear or offset along x."""
    return [magnitude, 0]


def warp_y_param(magnitude):
    """`[0, magnitude]`: a shear or offset along y."""
    return [0, magnitude]


def shift_enhance_range(magnitude):
    """`1 + magnitude`: turns a signed magnitude into an enhancement factor around 1."""
    return 1 + magnitude


def sharpness_kernel(magnitude):
    """The float32 3x3 kernel blending the image (weight `1 + magnitude`) with PIL's smoothed
    image (weight `-magnitude`): PIL's `ImageEnhance.Sharpness(1 + magnitude)`."""
    factor = np.float32(shift_enhance_range(magnitude))
    identity = np.zeros((3, 3), np.float32)
    identity[1, 1] = 1
    return factor * identity + (1 - factor) * _SMOOTH


def sharpness_kernel_shifted(magnitude):
    """`sharpness_kernel(magnitude - 1)`: the blend for the enhancement factor `magnitude`."""
    return sharpness_kernel(magnitude - 1)


def poster_mask_uint8(magnitude):
    """The `uint8` mask keeping the `round(magnitude)` highest bits, the count taken as a
    `uint8` (so negative counts wrap) and clamped to `[1, 8]`."""
    bits = max(1, min(8, int(np.round(magnitude)) % 256))
    return np.array(256 - 2 ** (8 - bits), dtype=np.uint8)


def solarize_add_shift(shift):
    """The shift as `uint8` (truncated), below 128 so that no sum exceeds 255 (negative shifts
    do not convert: OverflowError)."""
    if shift >= 128:
        raise ValueError("The solarize_add augmentation accepts shifts from 0 to 128")
    return np.uint8(shift)


# -- geometric ----------------------------------------------------------------------------------
def _warp(data, matrix, fill_value, interp_type):
    kwargs = {"inverse_map": False}
    if fill_value is not None:
        kwargs["fill_value"] = fill_value
    if interp_type is not None:
        kwargs["interp_type"] = interp_type
    return fn.warp_affine(data, matrix, **kwargs)


def _affine(kind, xy):
    """`identity + E * xy[:, newaxis]` (2x3 float32): the matrix `transforms.shear(shear=xy)`
    or `transforms.translation(offset=xy)` gives, built with arithmetic instead.

    Inside a conditional branch the executor runs an operator whose only DataNodes are argument
    inputs (as `transforms.*(shear=<per-sample>)`) on the whole batch while its arguments hold
    the branch's samples, and `transforms.*` fail on an empty branch; element-wise arithmetic
    has neither problem.
    """
    return types.Constant(_IDENTITY) + types.Constant(_AFFINE[kind]) * xy[:, dali.newaxis]


@augmentation(mag_range=(0, 0.3), randomly_negate=True, mag_to_param=warp_x_param)
def shear_x(data, shear, fill_value=128, interp_type=None):
    """Shears along x by `shear` (`warp_affine` by the shear matrix)."""
    return _warp(data, _affine("shear", shear), fill_value, interp_type)


@augmentation(mag_range=(0, 0.3), randomly_negate=True, mag_to_param=warp_y_param)
def shear_y(data, shear, fill_value=128, interp_type=None):
    """Shears along y by `shear`."""
    return _warp(data, _affine("shear", shear), fill_value, interp_type)


@augmentation(mag_range=(0.0, 1.0), randomly_negate=True, mag_to_param=warp_x_param)
def translate_x(data, rel_offset, shape, fill_value=128, interp_type=None):
    """Shifts along x by `rel_offset` times the width (`shape` is `(height, width)`)."""
    offset = rel_offset * shape[1]
    return _warp(data, _affine("translation", offset), fill_value, interp_type)


@augmentation(mag_range=(0.0, 1.0), randomly_negate=True, mag_to_param=warp_y_param)
def translate_y(data, rel_offset, shape, fill_value=128, interp_type=None):
    """Shifts along y by `rel_offset` times the height (`shape` is `(height, width)`)."""
    offset = rel_offset * shape[0]
    return _warp(data, _affine("translation", offset), fill_value, interp_type)


@augmentation(mag_range=(0, 250), randomly_negate=True, mag_to_param=warp_x_param,
              name="translate_x")
def translate_x_no_shape(data, offset, fill_value=128, interp_type=None):
    """Shifts along x by `offset` pixels."""
    return _warp(data, _affine("translation", offset), fill_value, interp_type)


@augmentation(mag_range=(0, 250), randomly_negate=True, mag_to_param=warp_y_param,
              name="translate_y")
def translate_y_no_shape(data, offset, fill_value=128, interp_type=None):
    """Shifts along y by `offset` pixels."""
    return _warp(data, _affine("translation", offset), fill_value, interp_type)


@augmentation(mag_range=(0, 30), randomly_negate=True)
def rotate(data, angle, fill_value=128, interp_type=None, rotate_keep_size=True):
    """Rotates by `angle` degrees (counter-clockwise), keeping the size by default."""
    kwargs = {"keep_size": rotate_keep_size}
    if fill_value is not None:
        kwargs["fill_value"] = fill_value
    if interp_type is not None:
        kwargs["interp_type"] = interp_type
    return fn.rotate(data, angle=angle, **kwargs)


# -- color --------------------------------------------------------------------------------------
@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=shift_enhance_range)
def brightness(data, parameter):
    """Scales the pixel values by `parameter`."""
    return fn.brightness(data, brightness=parameter)


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=shift_enhance_range)
def contrast(data, parameter):
    """Blends the image with its mean luminance: `mean + (data - mean) * parameter`."""
    mean = fn.reductions.mean(data, axis_names="HW", keep_dims=True)
    center = fn.reductions.sum(mean * types.Constant(_LUMA), axis_names="C", keep_dims=True)
    return fn.cast_like(center + (data - center) * parameter, data)


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=shift_enhance_range)
def color(data, parameter):
    """Scales the saturation by `parameter`."""
    return fn.saturation(data, saturation=parameter)


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=sharpness_kernel,
              param_device="auto")
def sharpness(data, kernel):
    """Filters with `kernel` (see `sharpness_kernel`)."""
    return fn.filter(data, kernel)


@augmentation(mag_range=(0, 4), mag_to_param=poster_mask_uint8, param_device="auto")
def posterize(data, mask):
    """Keeps the bits of `mask`."""
    return data & mask


@augmentation(mag_range=(256, 0), param_device="auto")
def solarize(data, threshold):
    """Inverts the values at or above `threshold`."""
    below = data < threshold
    return below * data + (below ^ True) * (types.Constant(255, dtype=types.UINT8) - data)


@augmentation(mag_range=(0, 110), mag_to_param=solarize_add_shift, param_device="auto")
def solarize_add(data, shift):
    """Adds `shift` to the values below 128."""
    below = data < types.Constant(128, dtype=types.UINT8)
    return below * (data + shift) + (below ^ True) * data


@augmentation
def invert(data, _):
    """`255 - data`."""
    return types.Constant(255, dtype=types.UINT8) - data


@augmentation
def equalize(data, _):
    """Equalizes the histogram of every channel."""
    return fn.equalize(data)


@augmentation
def auto_contrast(data, _):
    """Stretches every channel's values to `[0, 255]` (channels of one value are kept)."""
    lo = fn.reductions.min(data, axis_names="HW", keep_dims=True)
    hi = fn.reductions.max(data, axis_names="HW", keep_dims=True)
    diff = hi - lo
    stretch = diff > 0
    keep = stretch ^ True
    divisor = diff * stretch + types.Constant(255, dtype=types.UINT8) * keep
    scale = 255 / divisor
    return fn.cast_like((data - lo * stretch) * scale, data)


@augmentation
def identity(data, _):
    """The samples unchanged."""
    return data
