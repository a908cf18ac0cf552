"""Host side of `remap.cu` (fn.experimental.remap on the GPU): the per-frame descriptors and the
launch, built from the batch's shapes (HWC or FHWC), which samples' maps have one plane per frame
and the byte offsets of the input, output and map batches.  Pure numpy.

A launch is `kernel(grid, block, (src, dst, mapx, mapy, parts, shift, interp))`.
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 8                      # int64 fields of a RemapPart
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per part
MAX_PARTS = 65535               # gridDim.y
CODES = {np.dtype(np.uint8): "u8", np.dtype(np.int16): "i16", np.dtype(np.uint16): "u16",
         np.dtype(np.float32): "f32"}
SHIFTS = {"corner": np.float32(-0.5), "center": np.float32(0.0)}


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    parts: np.ndarray           # (parts, FIELDS) int64 RemapPart rows
    shift: np.float32
    interp: np.int32


def _elements(given, volumes, itemsize, what):
    if given is None:
        return np.cumsum(volumes) - volumes
    given = np.asarray(given, np.int64).reshape(-1)
    if len(given) != len(volumes) or (given % itemsize).any():
        raise ValueError(f"one {what} offset per sample, a multiple of the element size")
    return given // itemsize


def launch(shapes, map_frames, dtype, linear, pixel_origin, src_offsets=None, dst_offsets=None,
           mapx_offsets=None, mapy_offsets=None):
    """The `Launch` of a batch of HWC or FHWC `shapes`; `map_frames[i]`: sample i's maps have
    one H x W plane per frame (else one plane for all its frames); offsets in bytes (None:
    packed)."""
    code = CODES.get(np.dtype(dtype))
    if code is None:
        raise ValueError(f"remap.cu has no kernel for {np.dtype(dtype)}")
    if pixel_origin not in SHIFTS:
        raise ValueError(f"unknown pixel origin {pixel_origin!r}")
    shapes = np.asarray(shapes, np.int64)
    if shapes.ndim != 2:        # an empty batch keeps its (0, ndim) shape
        shapes = shapes.reshape(len(shapes), -1) if shapes.size else np.zeros((0, 4), np.int64)
    if shapes.shape[1] == 3:
        shapes = np.concatenate([np.ones((len(shapes), 1), np.int64), shapes], axis=1)
    if shapes.shape[1] != 4:
        raise ValueError("remap takes HWC or FHWC samples")
    frames, height, width, channels = shapes.T
    map_frames = np.asarray(map_frames, bool).reshape(-1)
    if len(map_frames) != len(shapes):
        raise ValueError("one map_frames flag per sample")
    itemsize = np.dtype(dtype).itemsize
    plane = height * width
    volumes = frames * plane * channels
    map_volumes = np.where(map_frames, frames, 1) * plane
    src = _elements(src_offsets, volumes, itemsize, "input")
    dst = _elements(dst_offsets, volumes, itemsize, "output")
    mx = _elements(mapx_offsets, map_volumes, 4, "mapx")
    my = _elements(mapy_offsets, map_volumes, 4, "mapy")
    sample = np.repeat(np.arange(len(shapes)), frames)
    frame = np.arange(len(sample)) - np.repeat(np.cumsum(frames) - frames, frames)
    rows = np.zeros((len(sample), FIELDS), np.int64)
    if len(rows) > MAX_PARTS:
        raise ValueError(f"a remap launch takes at most {MAX_PARTS} frames, not {len(rows)}")
    frame_volume = (plane * channels)[sample]
    map_step = np.where(map_frames, plane, 0)[sample]
    rows[:, 0] = src[sample] + frame * frame_volume
    rows[:, 1] = dst[sample] + frame * frame_volume
    rows[:, 2] = mx[sample] + frame * map_step
    rows[:, 3] = my[sample] + frame * map_step
    rows[:, 4] = height[sample]
    rows[:, 5] = width[sample]
    rows[:, 6] = channels[sample]
    blocks = int(min(max(-(-int(frame_volume.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(f"remap_{code}", (blocks, len(rows), 1), (BLOCK, 1, 1), rows,
                  SHIFTS[pixel_origin], np.int32(1 if linear else 0))
