"""Host side of fn.warp_affine's and fn.rotate's CUDA kernels (`warp_affine.cu`): one
WarpImage per image (an HWC sample or a frame of an FHWC one) and the launch configuration,
built from the plan `_warp.Warp.plan` makes (`matrices`, `interp`, `fill`) and the batch's
shapes and byte offsets, with the frames matched as `warp_batch` (_ext/kernels/warp.pyx)
matches them.

A launch is `kernel(grid, block, (src, dst, images, matrices, interp, use_fill, fill))` with
the kernel `Launch.kernel` of `warp_affine.cu`, `src`/`dst` the batches' buffers, `images`
and `matrices` on the device and the three scalars as given.
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 8                      # int64 fields of a WarpImage
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per image
MAX_IMAGES = 65535              # gridDim.y
_NAMES = {np.dtype(np.uint8): "u8", np.dtype(np.int16): "i16", np.dtype(np.int32): "i32",
          np.dtype(np.float32): "f32"}
_KERNELS = {("u8", "u8"), ("u8", "f32"), ("i16", "i16"), ("i16", "f32"), ("i32", "i32"),
            ("i32", "f32"), ("f32", "u8"), ("f32", "i16"), ("f32", "i32"), ("f32", "f32")}


class Launch(typing.NamedTuple):
    kernel: str                 # the kernel's name in warp_affine.cu
    grid: tuple
    block: tuple
    images: np.ndarray          # (max(images, 1), FIELDS) int64: the WarpImage array
    matrices: np.ndarray        # (rows, 6) float32
    interp: np.int32            # 0 nearest neighbour, 1 linear
    use_fill: np.int32          # 0: the clamped edge outside the input
    fill: np.float32


def kernel_name(in_dtype, out_dtype):
    pair = (_NAMES.get(np.dtype(in_dtype)), _NAMES.get(np.dtype(out_dtype)))
    if pair not in _KERNELS:
        raise ValueError(f"warp_affine.cu does not warp {np.dtype(in_dtype)} to "
                         f"{np.dtype(out_dtype)}")
    return f"warp_{pair[0]}_{pair[1]}"


def launch(in_shapes, out_shapes, in_dtype, out_dtype, matrices, interp, fill=None,
           src_offsets=None, dst_offsets=None):
    """The `Launch` warping HWC or FHWC samples of `in_shapes` into `out_shapes` (HWC inputs
    with FHWC outputs: each input warped into every frame of its output) with one matrix per
    sample or per output frame (`matrices` (rows, 6): output->input, see warp.pyx); `fill`:
    the value outside the input (None: the clamped edge); offsets in bytes (None: packed)."""
    in_dtype, out_dtype = np.dtype(in_dtype), np.dtype(out_dtype)
    kernel = kernel_name(in_dtype, out_dtype)
    if interp not in (0, 1):
        raise ValueError(f"unsupported interpolation {interp}")
    n = len(in_shapes)
    in_shape = np.asarray(in_shapes, np.int64).reshape(n, -1)
    out_shape = np.asarray(out_shapes, np.int64).reshape(n, -1)
    si, nd = in_shape.shape[1], out_shape.shape[1]
    repeat = si == 3 and nd == 4
    if len(out_shape) != n or (si != nd and not repeat) or nd not in (3, 4):
        raise ValueError("inputs and outputs must be as many HWC or FHWC samples")
    if n and ((in_shape[:, -1] != out_shape[:, -1]).any() or
              (si == 4 and (in_shape[:, 0] != out_shape[:, 0]).any())):
        raise ValueError("input and output must have the same frames and channels")
    matrices = np.ascontiguousarray(matrices, np.float32).reshape(-1, 6)
    frames = out_shape[:, 0] if nd == 4 else np.ones(n, np.int64)
    total = int(frames.sum())
    if len(matrices) not in (n, total):
        raise ValueError(f"expected one matrix per sample ({n}) or per frame ({total}), got "
                         f"{len(matrices)}")
    if total > MAX_IMAGES:
        raise ValueError(f"a warp launch takes at most {MAX_IMAGES} images, not {total}")
    src_offsets = _offsets(src_offsets, in_shape, in_dtype.itemsize)
    dst_offsets = _offsets(dst_offsets, out_shape, out_dtype.itemsize)
    sample = np.repeat(np.arange(n), frames)
    frame = np.arange(total) - np.repeat(np.cumsum(frames) - frames, frames)
    h, w, c = (in_shape[sample, si - 3 + k] for k in range(3))
    oh, ow = out_shape[sample, nd - 3], out_shape[sample, nd - 2]
    images = np.zeros((max(total, 1), FIELDS), np.int64)
    images[:total, 0] = src_offsets[sample] // in_dtype.itemsize + \
        (0 if repeat else frame * h * w * c)
    images[:total, 1] = dst_offsets[sample] // out_dtype.itemsize + frame * oh * ow * c
    images[:total, 2:7] = np.column_stack([h, w, c, oh, ow])
    images[:total, 7] = np.arange(total) if len(matrices) != n else sample
    pixels = int((oh * ow).max(initial=0))
    blocks = int(min(max(-(-pixels // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(kernel, (blocks, max(total, 1), 1), (BLOCK, 1, 1), images, matrices,
                  np.int32(interp), np.int32(fill is not None),
                  np.float32(0.0 if fill is None else fill))


def for_warp(ws, plan, src_offsets=None, dst_offsets=None):
    """fn.warp_affine's or fn.rotate's launch: `plan` of `_warp.Warp.plan`."""
    src = ws.input_storage(0)
    out = plan.outputs[0]
    return launch(src.shapes, out.shapes, src.dtype, out.dtype, plan.matrices, plan.interp,
                  plan.fill, src_offsets, dst_offsets)


def _offsets(offsets, shapes, itemsize):
    if offsets is None:
        volumes = np.prod(shapes, axis=1, dtype=np.int64) * itemsize
        return np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64)
    offsets = np.asarray(offsets, np.int64)
    if np.any(offsets % itemsize):
        raise ValueError("sample offsets must be multiples of the element size")
    return offsets
