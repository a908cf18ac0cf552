"""Detection operators: bounding boxes ("boxes": (N, 4) ltrb float32 boxes, N from 20 to 50 for
"image" and 1 to 3 for "small") and their labels."""

from bench.opcase import unary

CASE_LIST = [
    unary("bb_flip", kind="boxes", ltrb=True, vertical=1),
    unary("bbox_paste", kind="boxes", ratio=2.0, paste_x=0.25, paste_y=0.75, ltrb=True),
]
