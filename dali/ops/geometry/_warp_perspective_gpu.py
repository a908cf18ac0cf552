"""Host side of fn.experimental.warp_perspective's CUDA kernels (`warp_perspective.cu`): the
per-image descriptors and the launch configuration, from the CPU plan's image rows (sample,
byte offsets within the sample in the input and the output, h, w, channels, output h and w,
matrix row, fill row: what `warp_perspective_batch` takes) and the batches' byte offsets.

A launch is `kernel(grid, block, (src, dst, images, matrices, fills, numpy.int32(interp),
numpy.int32(border)))`, `matrices` the plan's (parts, 9) float64 output->input matrices and
`fills` its (rows, 4) float64 fill values.
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 9                      # int64 fields of a WarpPerspectiveImage
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per image
MAX_IMAGES = 65535              # gridDim.y
_KERNELS = {np.dtype(t): f"warp_perspective_{name}" for t, name in (
    (np.uint8, "u8"), (np.uint16, "u16"), (np.int16, "i16"), (np.float32, "f32"))}


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    images: np.ndarray          # (max(k, 1), FIELDS) int64: the WarpPerspectiveImage array


def launch(rows, dtype, src_offsets, dst_offsets, parts, fill_rows):
    """The `Launch` of the plan's image `rows` (k, 10) over batches of `dtype` with the
    samples' byte offsets; `parts` / `fill_rows`: how many matrices and fill rows there are."""
    dtype = np.dtype(dtype)
    kernel = _KERNELS.get(dtype)
    if kernel is None:
        raise ValueError(f"warp_perspective.cu has no kernel for {dtype}")
    rows = np.asarray(rows, np.int64).reshape(-1, 10)
    k = len(rows)
    if k > MAX_IMAGES:
        raise ValueError(f"a warp_perspective launch takes at most {MAX_IMAGES} images, "
                         f"not {k}")
    if k and (((rows[:, 5] < 1) | (rows[:, 5] > 4)).any() or (rows[:, 3:5] < 1).any() or
              (rows[:, 6:8] < 0).any() or (rows[:, 8] < 0).any() or
              (rows[:, 8] >= parts).any() or (rows[:, 9] < 0).any() or
              (rows[:, 9] >= fill_rows).any()):
        raise ValueError("invalid image rows")
    item = dtype.itemsize
    src = np.asarray(src_offsets, np.int64)[rows[:, 0]] + rows[:, 1]
    dst = np.asarray(dst_offsets, np.int64)[rows[:, 0]] + rows[:, 2]
    if (src % item).any() or (dst % item).any():
        raise ValueError("image offsets must be multiples of the element size")
    images = np.zeros((max(k, 1), FIELDS), np.int64)
    images[:k, 0], images[:k, 1] = src // item, dst // item
    images[:k, 2:7] = rows[:, 3:8]
    images[:k, 7:9] = rows[:, 8:10]
    pixels = rows[:, 6] * rows[:, 7]
    blocks = int(min(max(-(-int(pixels.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(kernel, (blocks, k, 1), (BLOCK, 1, 1), images)
