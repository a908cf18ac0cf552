"""Host side of fn.debayer's CUDA kernels (`debayer.cu`): the per-image descriptors (a sample,
or a frame of a sequence) and the launch configuration, from the images' byte offsets, sizes
and red positions (what `dali._ext.kernels.debayer.bilinear_batch` takes).

A launch is `kernel(grid, block, (src, dst, images))`.
"""

from __future__ import annotations

import typing

import numpy as np

FIELDS = 6                      # int64 fields of a DebayerImage
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per image
MAX_IMAGES = 65535              # gridDim.y
_KERNELS = {np.dtype(np.uint8): "debayer_u8", np.dtype(np.uint16): "debayer_u16"}


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    images: np.ndarray          # (max(k, 1), FIELDS) int64: the DebayerImage array


def launch(dtype, src_offsets, dst_offsets, sizes, red):
    """The `Launch` demosaicing k images of (h, w) `sizes` (even) with red at `red` (y, x)
    parities, at the given byte offsets (the RGB output image by image)."""
    dtype = np.dtype(dtype)
    kernel = _KERNELS.get(dtype)
    if kernel is None:
        raise ValueError(f"debayer.cu has no kernel for {dtype}")
    sizes = np.asarray(sizes, np.int64).reshape(-1, 2)
    k = len(sizes)
    if k > MAX_IMAGES:
        raise ValueError(f"a debayer launch takes at most {MAX_IMAGES} images, not {k}")
    red = np.asarray(red, np.int64).reshape(-1, 2)
    offsets = np.stack([np.asarray(src_offsets, np.int64).reshape(-1),
                        np.asarray(dst_offsets, np.int64).reshape(-1)], axis=1) \
        if k else np.zeros((0, 2), np.int64)
    if len(red) != k or len(offsets) != k:
        raise ValueError("offsets, sizes and red positions need one entry per image")
    if ((red < 0) | (red > 1)).any() or (sizes < 0).any() or (sizes % 2).any():
        raise ValueError("bad image size or red position")
    if (offsets % dtype.itemsize).any():
        raise ValueError("image offsets must be multiples of the element size")
    images = np.zeros((max(k, 1), FIELDS), np.int64)
    images[:k, :2] = offsets // dtype.itemsize
    images[:k, 2:4] = sizes
    images[:k, 4:6] = red
    pixels = sizes[:, 0] * sizes[:, 1]
    blocks = int(min(max(-(-int(pixels.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(kernel, (blocks, k, 1), (BLOCK, 1, 1), images)
