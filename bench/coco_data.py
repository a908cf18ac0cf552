"""A small COCO-style detection data set for the SSD example, its test and its benchmark.

`write(root, count)` writes `count` JPEGs made from the bundled photos (dali/data/images/photos,
cropped and resized to a few sizes between 300 and 640 pixels) and an instances JSON with 1 to 6
boxes per image (`bbox` as [x, y, w, h] in pixels, category ids 1..`NUM_CATEGORIES`).  The data
set is deterministic for a given `seed`.
"""

from __future__ import annotations

import json
import pathlib

import cv2
import numpy as np

PHOTOS = pathlib.Path(__file__).resolve().parents[1] / "dali" / "data" / "images" / "photos"
SIZES = ((300, 300), (480, 360), (360, 480), (640, 480), (512, 512), (640, 427))   # (w, h)
NUM_CATEGORIES = 8


def _photos():
    out = []
    for path in sorted(PHOTOS.glob("*.jpg")):
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is not None:
            out.append(img)
    if not out:
        raise FileNotFoundError(f"no photos in {PHOTOS}")
    return out


def _image(photo, size, rng):
    """A random crop of `photo` (at least half of each side) resized to `size` = (w, h)."""
    ph, pw = photo.shape[:2]
    cw = int(rng.integers(pw // 2, pw + 1))
    ch = int(rng.integers(ph // 2, ph + 1))
    x, y = int(rng.integers(0, pw - cw + 1)), int(rng.integers(0, ph - ch + 1))
    return cv2.resize(photo[y:y + ch, x:x + cw], size, interpolation=cv2.INTER_AREA)


def _boxes(w, h, rng):
    """1 to 6 boxes [x, y, w, h] inside a w x h image, each 10%..60% of a side."""
    boxes = []
    for _ in range(int(rng.integers(1, 7))):
        bw = float(rng.uniform(0.1, 0.6) * w)
        bh = float(rng.uniform(0.1, 0.6) * h)
        bx, by = float(rng.uniform(0, w - bw)), float(rng.uniform(0, h - bh))
        boxes.append([round(bx, 2), round(by, 2), round(bw, 2), round(bh, 2)])
    return boxes


def write(root, count=64, seed=0, quality=90):
    """Write the data set under `root` (created if needed): `root/images/*.jpg` and
    `root/instances.json`.  Returns (file_root, annotations_file) as strings."""
    root = pathlib.Path(root)
    (root / "images").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    photos = _photos()
    images, anns = [], []
    for i in range(count):
        w, h = SIZES[i % len(SIZES)]
        img = _image(photos[i % len(photos)], (w, h), rng)
        name = f"{i:06d}.jpg"
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        (root / "images" / name).write_bytes(buf.tobytes())
        images.append({"id": i + 1, "file_name": name, "width": w, "height": h})
        for box in _boxes(w, h, rng):
            anns.append({"id": len(anns) + 1, "image_id": i + 1,
                         "category_id": int(rng.integers(1, NUM_CATEGORIES + 1)),
                         "bbox": box, "area": box[2] * box[3], "iscrowd": 0})
    doc = {"images": images, "annotations": anns,
           "categories": [{"id": c, "name": f"class{c}"} for c in range(1, NUM_CATEGORIES + 1)]}
    ann_file = root / "instances.json"
    ann_file.write_text(json.dumps(doc))
    return str(root / "images"), str(ann_file)
