"""Segmentation helpers: random pixels and objects of masks, ROI crop windows, polygons."""

import numpy as np

from bench import opcase
from bench.opcase import unary


@opcase.input_kind("mask")
def _mask(size, batch_size):
    """Label masks (HWC, one channel, uint8) cut from the images: 0 background, 1..3 for three
    brightness bands of the green channel, so objects are photo-shaped blobs."""
    out = []
    for img in opcase.batch("u8", size, batch_size)[0]:
        out.append(np.digitize(img[:, :, 1:2], [100, 150, 200]).astype(np.uint8))
    return out, "HWC"


CASE_LIST = [
    unary("segmentation.random_mask_pixel", kind="mask", foreground=1),
    unary("segmentation.random_object_bbox", kind="mask", format="box"),
]
