"""Segmentation helpers: random pixels and objects of masks, ROI crop windows, polygons."""

import numpy as np

from bench import opcase
from bench.opcase import OpCase, unary


@opcase.input_kind("mask")
def _mask(size, batch_size):
    """Label masks (HWC, one channel, uint8) cut from the images: 0 background, 1..3 for three
    brightness bands of the green channel, so objects are photo-shaped blobs."""
    out = []
    for img in opcase.batch("u8", size, batch_size)[0]:
        out.append(np.digitize(img[:, :, 1:2], [100, 150, 200]).astype(np.uint8))
    return out, "HWC"


def _polygons(size, batch_size):
    """Per sample: mask ids 0..N-1 (N from 20 to 50 for "image", 1 to 3 for "small"), one
    polygon of 3 to 8 vertices each; half of the masks are selected (every other id)."""
    rng = np.random.default_rng(5)
    out = []
    for i in range(batch_size):
        n = 20 + i % 31 if size == "image" else 1 + i % 3
        sizes = rng.integers(3, 9, n)
        ends = np.cumsum(sizes)
        polygons = np.stack([np.arange(n), ends - sizes, ends], 1).astype(np.int32)
        vertices = rng.random((int(ends[-1]), 2)).astype(np.float32)
        out.append((np.arange(0, n, 2, dtype=np.int32), polygons, vertices))
    return out


@opcase.input_kind("mask_ids")
def _mask_ids(size, batch_size):
    return [p[0] for p in _polygons(size, batch_size)], None


@opcase.input_kind("polygons")
def _polygon_rows(size, batch_size):
    return [p[1] for p in _polygons(size, batch_size)], None


@opcase.input_kind("vertices")
def _vertices(size, batch_size):
    return [p[2] for p in _polygons(size, batch_size)], None


CASE_LIST = [
    unary("segmentation.random_mask_pixel", kind="mask", foreground=1),
    unary("segmentation.random_object_bbox", kind="mask", format="box"),
    OpCase("segmentation.select_masks", "segmentation.select_masks",
           lambda fn, types, ids, polygons, vertices, size: fn.segmentation.select_masks(
               ids, polygons, vertices, reindex_masks=True),
           ("mask_ids", "polygons", "vertices")),
    unary("roi_random_crop", crop_shape=[4, 4], roi_start=[2, 2], roi_shape=[3, 3]),
    OpCase("random_crop_generator", "random_crop_generator",
           lambda fn, types, x, size: list(fn.random_crop_generator(x.shape())), ("u8",)),
]
