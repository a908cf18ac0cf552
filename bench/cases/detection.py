"""Detection operators: bounding boxes ("boxes": (N, 4) ltrb float32 boxes, N from 20 to 50 for
"image" and 1 to 3 for "small") and their labels ("box_labels": int32, one per box)."""

import numpy as np

from bench import opcase
from bench.opcase import SIDE, OpCase, unary


@opcase.input_kind("box_labels")
def _box_labels(size, batch_size):
    boxes, _ = opcase.batch("boxes", size, batch_size)
    rng = np.random.default_rng(13)
    return [rng.integers(1, 81, len(b)).astype(np.int32) for b in boxes], None


def _ssd_anchors():
    """The 8732 ltrb anchors of SSD300 (feature maps 38 ... 1, as in DALI's SSD example)."""
    out = []
    sizes, steps = [38, 19, 10, 5, 3, 1], [8, 16, 32, 64, 100, 300]
    scales, ratios = [21, 45, 99, 153, 207, 261, 315], [[2], [2, 3], [2, 3], [2, 3], [2], [2]]
    for k, (f, step) in enumerate(zip(sizes, steps, strict=True)):
        s1, s2 = scales[k] / 300, (scales[k] * scales[k + 1]) ** 0.5 / 300
        shapes = [(s1, s1), (s2, s2)]
        for r in ratios[k]:
            shapes += [(s1 * r ** 0.5, s1 / r ** 0.5), (s1 / r ** 0.5, s1 * r ** 0.5)]
        for i in range(f):
            for j in range(f):
                cx, cy = (j + 0.5) * step / 300, (i + 0.5) * step / 300
                out += [(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2) for w, h in shapes]
    return np.clip(np.array(out, np.float32), 0, 1).ravel().tolist()


SSD_ANCHORS = _ssd_anchors()


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
    OpCase("box_encoder", "box_encoder",
           lambda fn, types, boxes, labels, size: tuple(fn.box_encoder(
               boxes, labels, anchors=SSD_ANCHORS, criteria=0.5, offset=True, scale=1.0,
               stds=[0.1, 0.1, 0.2, 0.2])), ("boxes", "box_labels")),
    OpCase("bbox_rotate", "bbox_rotate",
           lambda fn, types, boxes, labels, size: tuple(fn.bbox_rotate(
               boxes, labels, angle=15.0, input_shape=[SIDE[size], SIDE[size]],
               keep_size=True)), ("boxes", "box_labels")),
    OpCase("ssd_random_crop", "ssd_random_crop",
           lambda fn, types, image, boxes, labels, size: tuple(fn.ssd_random_crop(
               image, boxes, labels, num_attempts=10)), ("u8", "boxes", "box_labels")),
]
