"""Detection operators: bounding boxes ("boxes": (N, 4) ltrb float32 boxes, N from 20 to 50 for
"image" and 1 to 3 for "small") and their labels ("box_labels": int32, one per box)."""

import numpy as np

from bench import opcase
from bench.opcase import OpCase, unary


@opcase.input_kind("box_labels")
def _box_labels(size, batch_size):
    boxes, _ = opcase.batch("boxes", size, batch_size)
    rng = np.random.default_rng(13)
    return [rng.integers(1, 81, len(b)).astype(np.int32) for b in boxes], None


def _ssd_crop(fn, types, boxes, labels, size):
    # the SSD example's crop (DALI's docs/examples/use_cases/pytorch/single_stage_detector)
    return tuple(fn.random_bbox_crop(boxes, labels, aspect_ratio=[0.5, 2.0],
                                     thresholds=[0.0, 0.1, 0.3, 0.5, 0.7, 0.9],
                                     scaling=[0.3, 1.0], bbox_layout="xyXY",
                                     allow_no_crop=True, num_attempts=50))


CASE_LIST = [
    unary("bb_flip", kind="boxes", ltrb=True, vertical=1),
    unary("bbox_paste", kind="boxes", ratio=2.0, paste_x=0.25, paste_y=0.75, ltrb=True),
    OpCase("random_bbox_crop", "random_bbox_crop", _ssd_crop, ("boxes", "box_labels")),
]
