"""The SSD300 training pipeline of DALI's SSD example, end to end on the CPU.

Run from the repository root:

    python docs/examples/ssd_pipeline.py                          # on a generated data set
    python docs/examples/ssd_pipeline.py --coco-root val2017 \\
        --annotations annotations/instances_val2017.json          # on a COCO directory

As in DALI's example (pytorch/single_stage_detector/src/coco_pipeline.py), the pipeline reads
COCO images with their boxes (ltrb, relative to the image) and labels, decodes them, picks a
random crop that keeps part of the boxes (random_bbox_crop) and slices it out, flips image and
boxes together on a coin, resizes to 300x300, normalizes into a CHW float tensor and encodes
the boxes against the 8732 default boxes of SSD300 (box_encoder: for each default box, the
offsets to its matched box and that box's label; label 0 is the background).  The zoom-out of
DALI's example (paste into a canvas up to 4x larger, bbox_paste) is off by default: `--zoom-out`
turns it on.  Without `--coco-root`, a small COCO-style data set made from the bundled photos
(bench/coco_data.py) is written to a temporary directory.
"""

import argparse
import json
import pathlib
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:   # bench/ (the data set generator, the default boxes)
    sys.path.insert(0, str(ROOT))

from bench import coco_data  # noqa: E402
from bench.ssd import default_boxes  # noqa: E402
from dali import fn, pipeline_def, types  # noqa: E402

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@pipeline_def
def ssd_pipeline(file_root, annotations_file, shard_id=0, num_shards=1, zoom_out=False,
                 with_crop_labels=False):
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ltrb=True, ratio=True,
        skip_empty=True, shard_id=shard_id, num_shards=num_shards, random_shuffle=True,
        name="Reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    if zoom_out:
        ratio = fn.random.uniform(range=[1.0, 4.0])
        px, py = fn.random.uniform(range=[0.0, 1.0]), fn.random.uniform(range=[0.0, 1.0])
        images = fn.paste(images, ratio=ratio, paste_x=px, paste_y=py, fill_value=(0, 0, 0))
        bboxes = fn.bbox_paste(bboxes, ratio=ratio, paste_x=px, paste_y=py, ltrb=True)
    anchor, shape, bboxes, labels = fn.random_bbox_crop(
        bboxes, labels, aspect_ratio=[0.5, 2.0], thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9],
        scaling=[0.3, 1.0], bbox_layout="xyXY", allow_no_crop=True, num_attempts=1)
    images = fn.slice(images, anchor, shape, out_of_bounds_policy="trim_to_shape")
    coin = fn.random.coin_flip(probability=0.5)
    bboxes = fn.bb_flip(bboxes, ltrb=True, horizontal=coin)
    images = fn.flip(images, horizontal=coin)
    images = fn.resize(images, resize_x=300, resize_y=300)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      mean=MEAN, std=STD)
    encoded, encoded_labels = fn.box_encoder(
        bboxes, labels, criteria=0.5, anchors=default_boxes().ravel().tolist(), offset=True,
        scale=1.0, stds=[0.1, 0.1, 0.2, 0.2])
    if with_crop_labels:   # the labels of the boxes the crop kept (for checking)
        return images, encoded, encoded_labels, labels
    return images, encoded, encoded_labels


def main(batch_size=8, iterations=3, coco_root=None, annotations=None, zoom_out=False,
         num_threads=2, seed=0):
    """Run `iterations` batches; returns {"num_classes": int, "batches": [(images, boxes,
    labels, crop_labels)]} with numpy arrays (crop_labels: a list, one array a sample)."""
    with tempfile.TemporaryDirectory(prefix="ssd-example-") as tmp:
        if coco_root is None:
            coco_root, annotations = coco_data.write(tmp, count=64)
        num_classes = len(json.loads(pathlib.Path(annotations).read_text())["categories"])
        pipe = ssd_pipeline(coco_root, annotations, zoom_out=zoom_out, with_crop_labels=True,
                            batch_size=batch_size, num_threads=num_threads, device_id=None,
                            seed=seed)
        pipe.build()
        batches = []
        for i in range(iterations):
            images, boxes, labels, crop_labels = pipe.run()
            images, boxes = np.array(images.as_tensor()), np.array(boxes.as_tensor())
            labels = np.array(labels.as_tensor())
            crop_labels = [np.array(crop_labels[k]) for k in range(len(crop_labels))]
            positives = (labels > 0).sum(axis=1)
            print(f"batch {i}: images {images.shape} {images.dtype}, boxes {boxes.shape}, "
                  f"labels {labels.shape}; positive anchors per sample {positives.tolist()}")
            batches.append((images, boxes, labels, crop_labels))
        del pipe
    return {"num_classes": num_classes, "batches": batches}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coco-root", default=None, help="the directory of the images")
    ap.add_argument("--annotations", default=None, help="the instances JSON file")
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--zoom-out", action="store_true")
    a = ap.parse_args()
    if (a.coco_root is None) != (a.annotations is None):
        ap.error("--coco-root and --annotations go together")
    main(a.batch_size, a.iterations, a.coco_root, a.annotations, a.zoom_out)
