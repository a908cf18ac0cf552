"""Host side of the colour operators' CUDA kernels (`color.cu`): the per-sample descriptors and
the launch configuration, from what the CPU path's plan holds.

- `linear_launch`: fn.brightness_contrast, fn.brightness, fn.contrast (1x1 maps) and
  fn.color_twist, fn.hsv, fn.hue, fn.saturation (3x3 maps), from the plan's `mats`, `offsets`
  and `frames`.  A launch is `kernel(grid, block, (src, dst, samples, mats, offsets,
  numpy.int32(cin), numpy.int32(cout)))`.
- `space_launch`: fn.color_space_conversion, from the plan's `conversion` (name, red).  A
  launch is `kernel(grid, block, (src, dst, samples, numpy.int32(code), numpy.int32(red),
  coeffs))`.

`run_linear` is the linear operators' `run_gpu`.
"""

from __future__ import annotations

import typing

import numpy as np

from dali._ext.kernels import color as _kernel

FIELDS = 5                      # int64 fields of a ColorSample
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
_CODES = {np.dtype(t): c for t, c in (
    (np.uint8, "u8"), (np.int16, "i16"), (np.int32, "i32"), (np.float32, "f32"),
    (np.float16, "f16"))}
# color.pyx's constants of the conversions, in the order of color.cu's `coeffs`
COEFFS = np.concatenate([_kernel._TO_YCBCR.reshape(-1), _kernel._FROM_YCBCR.reshape(-1),
                         [np.float32(255.0 / 219.0), np.float32(219.0 / 255.0)]]
                        ).astype(np.float32)
_SPACE_CHANNELS = {"swap_rb": (3, 3), "to_gray": (3, 1), "gray_to_rgb": (1, 3),
                   "rgb_to_ycbcr": (3, 3), "ycbcr_to_rgb": (3, 3), "ycbcr_to_gray": (3, 1),
                   "gray_to_ycbcr": (1, 3)}


class LinearLaunch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (n, FIELDS) int64: the ColorSample array
    mats: np.ndarray            # (parts, cout, cin) float32
    offsets: np.ndarray         # (parts, cout) float32
    cin: np.int32
    cout: np.int32


class SpaceLaunch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    samples: np.ndarray         # (n, FIELDS) int64: the ColorSample array
    code: np.int32              # the conversion's code (color.pyx's CONVERSIONS)
    red: np.int32
    coeffs: np.ndarray          # COEFFS


def linear_kernel_name(in_dtype, out_dtype):
    src, dst = _CODES.get(np.dtype(in_dtype)), _CODES.get(np.dtype(out_dtype))
    if src is None or dst is None:
        raise ValueError(f"color.cu has no kernel from {np.dtype(in_dtype)} to "
                         f"{np.dtype(out_dtype)}")
    return f"color_linear_{src}_{dst}"


def linear_launch(shapes, mats, offsets, frames, in_dtype, out_dtype, src_offsets=None,
                  dst_offsets=None):
    """The `LinearLaunch` of a batch of input `shapes` ((n, ndim): pixels of `cin` channels
    back to back) mapped by the plan's `mats` ((parts, cout, cin)), `offsets` ((parts, cout))
    and `frames` (the parts of every sample, or None for one each); one matrix may serve every
    part.  Offsets are the samples' byte offsets in the input and output buffers (None:
    packed)."""
    shapes = np.asarray(shapes, np.int64).reshape(len(shapes), -1)
    n = len(shapes)
    _check_samples(n)
    mats = np.ascontiguousarray(mats, np.float32)
    offsets = np.ascontiguousarray(offsets, np.float32)
    if mats.ndim != 3 or offsets.shape != mats.shape[:2]:
        raise ValueError("mats must be (parts, cout, cin) and offsets (parts, cout)")
    cout, cin = mats.shape[1:]
    if (cin, cout) not in ((1, 1), (3, 3)):
        raise ValueError(f"color.cu maps 1 or 3 channels to as many, not {cin} to {cout}")
    volumes = np.prod(shapes, axis=1)
    pixels = volumes // cin
    if np.any(pixels * cin != volumes):
        raise ValueError(f"the samples' sizes are not multiples of {cin} channels")
    parts = np.ones(n, np.int64) if frames is None else np.asarray(frames, np.int64)
    if parts.shape != (n,) or np.any(parts < 0) or np.any((pixels > 0) & (
            (parts == 0) | (pixels % np.maximum(parts, 1) != 0))):
        raise ValueError("frames must split every sample into equal parts")
    total = int(parts.sum())
    if len(mats) not in (1, total):
        raise ValueError(f"the samples have {total} parts but {len(mats)} matrices are given")
    samples = np.zeros((n, FIELDS), np.int64)
    samples[:, 0] = _elements(src_offsets, volumes, in_dtype)
    samples[:, 1] = _elements(dst_offsets, pixels * cout, out_dtype)
    samples[:, 2] = pixels
    if len(mats) == 1:          # one matrix for every part
        samples[:, 3] = np.maximum(pixels, 1)
    else:
        samples[:, 3] = np.maximum(pixels // np.maximum(parts, 1), 1)
        samples[:, 4] = np.cumsum(parts) - parts
    return LinearLaunch(linear_kernel_name(in_dtype, out_dtype), _grid(pixels * cout, n),
                        (BLOCK, 1, 1), samples, mats, offsets, np.int32(cin), np.int32(cout))


def run_linear(ws, plan):
    """One launch of the linear map over the batch, with the plan's matrices (the CPU
    path's)."""
    src, dst = ws.input_storage(0), ws.outputs[0]
    launch = linear_launch(src.shapes, plan.mats, plan.offsets, plan.frames, src.dtype,
                           dst.dtype, src.offsets, dst.offsets)
    ws.gpu.launch(__file__, launch.kernel, launch.grid, launch.block,
                  (src, dst, launch.samples, launch.mats, launch.offsets, launch.cin,
                   launch.cout))


def space_launch(shapes, conversion, red, src_offsets=None, dst_offsets=None):
    """The `SpaceLaunch` of a batch of uint8 input `shapes` converted by the plan's
    `conversion` (a key of color.pyx's CONVERSIONS) with the red channel at `red`."""
    shapes = np.asarray(shapes, np.int64).reshape(len(shapes), -1)
    n = len(shapes)
    _check_samples(n)
    if conversion not in _SPACE_CHANNELS or red not in (0, 2):
        raise ValueError(f"color.cu has no conversion {conversion!r} with red at {red}")
    cin, cout = _SPACE_CHANNELS[conversion]
    volumes = np.prod(shapes, axis=1)
    pixels = volumes // cin
    if np.any(pixels * cin != volumes):
        raise ValueError(f"the samples' sizes are not multiples of {cin} channels")
    samples = np.zeros((n, FIELDS), np.int64)
    samples[:, 0] = _elements(src_offsets, volumes, np.uint8)
    samples[:, 1] = _elements(dst_offsets, pixels * cout, np.uint8)
    samples[:, 2] = pixels
    samples[:, 3] = 1
    return SpaceLaunch("color_space_u8", _grid(pixels * cout, n), (BLOCK, 1, 1), samples,
                       np.int32(_kernel.CONVERSIONS[conversion]), np.int32(red), COEFFS)


def _check_samples(n):
    if n > MAX_SAMPLES:
        raise ValueError(f"a color.cu launch takes at most {MAX_SAMPLES} samples, not {n}")


def _grid(volumes, n):
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return (blocks, max(n, 1), 1)


def _elements(offsets, volumes, dtype):
    """Element offsets of the samples: `offsets` in bytes, or packed when None."""
    if offsets is None:
        return np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64)
    itemsize = np.dtype(dtype).itemsize
    offsets = np.asarray(offsets, np.int64)
    if np.any(offsets % itemsize):
        raise ValueError("sample offsets must be multiples of the element size")
    return offsets // itemsize
