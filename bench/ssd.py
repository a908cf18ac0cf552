"""The SSD training pipeline (DALI's SSD example, coco_pipeline.py, on CPU) as a benchmark graph
written once against `(fn, types)`, so the same code builds dali's and real DALI's pipeline.

readers.coco (ltrb, ratio, skip_empty) -> decoders.image (RGB) -> random_bbox_crop -> slice
-> bb_flip + flip (one coin) -> resize 300x300 -> crop_mirror_normalize (FLOAT, CHW, ImageNet
mean/std) -> box_encoder (the 8732 default boxes of SSD300, ltrb).  The zoom-out (paste +
bbox_paste) of DALI's example is optional there and left out here.

    python -m bench.ssd                 # both backends, interleaved repeats, on a fresh data set
    python -m bench.report --sections ssd
"""

from __future__ import annotations

import itertools
import math
import tempfile

import numpy as np

from bench import coco_data, measure, pipelines

IMAGENET_MEAN = pipelines.IMAGENET_MEAN
IMAGENET_STD = pipelines.IMAGENET_STD
TARGET = 1.5          # the throughput ratio dali / real DALI issue #10 aims at
NUM_IMAGES = 256      # images in the benchmark's data set (4 batches of 64)

# SSD300 (DALI's SSD example, utils.dboxes300_coco)
FIG_SIZE = 300
FEAT_SIZE = (38, 19, 10, 5, 3, 1)
STEPS = (8, 16, 32, 64, 100, 300)
SCALES = (21, 45, 99, 153, 207, 261, 315)
ASPECT_RATIOS = ((2,), (2, 3), (2, 3), (2, 3), (2,), (2,))


def default_boxes():
    """The 8732 default boxes of SSD300 as an (8732, 4) float32 array of ltrb, clipped to
    [0, 1] in (cx, cy, w, h) before the conversion, as DALI's example does."""
    boxes = []
    for idx, sfeat in enumerate(FEAT_SIZE):
        fk = FIG_SIZE / STEPS[idx]
        sk1, sk2 = SCALES[idx] / FIG_SIZE, SCALES[idx + 1] / FIG_SIZE
        sk3 = math.sqrt(sk1 * sk2)
        sizes = [(sk1, sk1), (sk3, sk3)]
        for alpha in ASPECT_RATIOS[idx]:
            w, h = sk1 * math.sqrt(alpha), sk1 / math.sqrt(alpha)
            sizes += [(w, h), (h, w)]
        for w, h in sizes:
            for i, j in itertools.product(range(sfeat), repeat=2):
                boxes.append(((j + 0.5) / fk, (i + 0.5) / fk, w, h))
    xywh = np.clip(np.array(boxes, dtype=np.float64), 0.0, 1.0)
    ltrb = np.concatenate([xywh[:, :2] - xywh[:, 2:] / 2, xywh[:, :2] + xywh[:, 2:] / 2], axis=1)
    return ltrb.astype(np.float32)


def graph(fn, types, file_root, annotations_file, shard_id=0, num_shards=1, zoom_out=False):
    """The SSD training graph: (images (3, 300, 300) float, encoded boxes (8732, 4),
    labels (8732,))."""
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ltrb=True, ratio=True,
        skip_empty=True, shard_id=shard_id, num_shards=num_shards, random_shuffle=True,
        name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    if zoom_out:   # DALI's optional zoom-out: paste into a canvas up to 4x larger
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
                                      mean=IMAGENET_MEAN, std=IMAGENET_STD)
    bboxes, labels = fn.box_encoder(bboxes, labels, criteria=0.5,
                                    anchors=default_boxes().ravel().tolist(), offset=True,
                                    scale=1.0, stds=[0.1, 0.1, 0.2, 0.2])
    return images, bboxes, labels


def data_set(root, count=NUM_IMAGES):
    """(file_root, annotations_file) of a fresh COCO-style data set under `root`."""
    return coco_data.write(root, count)


def measure_ssd(loaded, files, repeats, iterations, warmup, log):
    """{label: [Timing per repeat]}: the SSD pipeline on each backend, batch 64,
    num_threads=2, interleaved (the first backend alternates between repeats)."""
    res = {}
    for rep in range(repeats):
        for b in loaded if rep % 2 == 0 else loaded[::-1]:
            t = pipelines.timed(b, graph, iterations, warmup, file_root=files[0],
                                annotations_file=files[1])
            res.setdefault(b.label, []).append(t)
            log(f"  ssd     {b.label:5s} {t.rate:7.1f} img/s  {t.cpu_ms:.2f} CPU ms/img")
    return res


def table(res):
    """The markdown table of `measure_ssd`'s results (medians; ratio = median of the paired
    per-repeat ratios)."""
    return measure.pipeline_table("img", [(
        "SSD300 training (coco -> crop -> flip -> 300x300 -> box_encoder)", res)], TARGET)


def main(argv=None):
    a, loaded, log = pipelines.standalone(__doc__, argv)
    with tempfile.TemporaryDirectory(prefix="dali-ssd-") as tmp:
        res = measure_ssd(loaded, data_set(tmp), a.repeats, a.iterations, a.warmup, log)
    print(table(res))
    return res


if __name__ == "__main__":
    main()
