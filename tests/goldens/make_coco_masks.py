"""Regenerate coco_masks.npz with real NVIDIA DALI: the pixel-wise masks fn.readers.coco paints
for a small random COCO data set (polygons, RLEs as count lists and as compressed strings,
overlapping objects of one label and of several, an image whose smallest label has no mask).

The npz holds `annotations` (the JSON text), `cases` (a JSON list of keyword arguments) and
`{c}_{i}` (the mask of image i, in reading order, for case c).
Run: `python tests/goldens/make_coco_masks.py`.
"""
import json
import pathlib
import tempfile

import numpy as np
from nvidia.dali import fn, pipeline_def

OUT = pathlib.Path(__file__).resolve().parent / "coco_masks.npz"
CASES = [{}, {"ratio": True}, {"avoid_class_remapping": True, "include_iscrowd": False}]


def rle_string(counts):
    """The COCO API's compressed string of a count list (rleToString)."""
    out = []
    for i, x in enumerate(counts):
        x = int(x) - (int(counts[i - 2]) if i > 2 else 0)
        more = True
        while more:
            c = x & 0x1F
            x >>= 5
            more = x != -1 if c & 0x10 else x != 0
            out.append(chr((c | 0x20 if more else c) + 48))
    return "".join(out)


def rle_of(mask):
    flat = mask.T.reshape(-1).astype(np.int8)
    bounds = np.concatenate([[0], np.flatnonzero(np.diff(flat)) + 1, [flat.size]])
    counts = np.diff(bounds).tolist()
    return [0] + counts if flat[0] else counts


def annotations():
    rng = np.random.default_rng(11)
    images, anns = [], []
    for k in range(5):
        h, w = int(rng.integers(12, 40)), int(rng.integers(12, 40))
        images.append({"id": 10 + k, "file_name": f"{k}.jpg", "width": w, "height": h})
        for j in range(int(rng.integers(1, 5))):
            ann = {"image_id": 10 + k, "category_id": int(rng.choice([3, 7, 9])),
                   "bbox": [1.0, 1.0, 5.0, 5.0], "iscrowd": int(j == 3)}
            if k == 4 and j == 0:
                ann["category_id"] = 1          # the smallest label, without a mask
            elif rng.random() < 0.35:
                mask = rng.random((h, w)) < 0.4
                counts = rle_of(mask)
                ann["segmentation"] = {"size": [h, w], "counts": rle_string(counts)
                                       if rng.random() < 0.5 else counts}
            else:
                ann["segmentation"] = [
                    [float(v) for v in np.round(rng.uniform(-2, [w + 2, h + 2] * n_v), 2)]
                    for n_v in rng.integers(3, 7, int(rng.integers(1, 3)))]
            anns.append(ann)
    return {"images": images, "annotations": anns,
            "categories": [{"id": c} for c in (1, 3, 7, 9)]}


def masks(root, kwargs):
    @pipeline_def(batch_size=5, num_threads=1, device_id=None)
    def pipe():
        outs = fn.readers.coco(file_root=str(root), annotations_file=str(root / "ann.json"),
                               pixelwise_masks=True, **kwargs)
        return outs[3]

    p = pipe()
    p.build()
    (out,) = p.run()
    return [np.array(out[i]) for i in range(len(out))]


def main():
    doc = annotations()
    text = json.dumps(doc)
    arrays = {"annotations": np.array(text), "cases": np.array(json.dumps(CASES))}
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "ann.json").write_text(text)
        for info in doc["images"]:
            (root / info["file_name"]).write_bytes(b"x")
        for c, kwargs in enumerate(CASES):
            for i, m in enumerate(masks(root, kwargs)):
                arrays[f"{c}_{i}"] = m
    np.savez_compressed(OUT, **arrays)


if __name__ == "__main__":
    main()
