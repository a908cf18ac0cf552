"""The EfficientNet training pipeline (DALI's EfficientNet example, image_classification/dali.py,
on CPU) as a benchmark graph written once against `(fn, types)`, so the same code builds dali's
and real DALI's pipeline.

readers.file (shuffled) -> decoders.image_random_crop (aspect [3/4, 4/3], area [0.08, 1]) ->
resize 224x224 (linear, no antialias) -> flip on a coin -> TrivialAugment Wide, or AutoAugment's
ImageNet policy (translations relative to the JPEG's shape) -> crop_mirror_normalize (FLOAT,
CHW, ImageNet mean/std).  Batch 64, num_threads=2, `enable_conditionals=True`.

    python -m bench.efficientnet                # both policies, both backends, interleaved
    python -m bench.efficientnet --policies trivialaugment
"""

from __future__ import annotations

import importlib
import sys

from bench import corpus, measure, pipelines

TARGET = 1.5          # the throughput ratio dali / real DALI issue #10 aims at
IMAGE_SIZE = 224
POLICIES = {"trivialaugment": "TrivialAugment Wide", "autoaugment": "AutoAugment ImageNet",
            "disabled": "no automatic augmentation"}
MODULES = {"trivialaugment": "auto_aug.trivial_augment", "autoaugment": "auto_aug.auto_augment"}


def import_policy(backend, policy):
    """Import the backend's module of `policy` (the graph looks it up in `sys.modules`: an
    import call inside the graph would go through real DALI's AutoGraph, which warns)."""
    if policy in MODULES:
        importlib.import_module(f"{backend.name}.{MODULES[policy]}")


def graph(fn, types, root, policy="trivialaugment"):
    """The EfficientNet training graph: (images (3, 224, 224) float, labels)."""
    pkg = fn.__name__.rsplit(".", 1)[0]     # "dali" or "nvidia.dali"
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, pad_last_batch=True,
                                    name="Reader")
    images = fn.decoders.image_random_crop(jpegs, device="cpu", output_type=types.RGB,
                                           random_aspect_ratio=[0.75, 4.0 / 3.0],
                                           random_area=[0.08, 1.0])
    images = fn.resize(images, resize_x=IMAGE_SIZE, resize_y=IMAGE_SIZE,
                       interp_type=types.INTERP_LINEAR, antialias=False)
    images = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; expected one of {list(POLICIES)}")
    if policy == "autoaugment":
        auto_augment = sys.modules[f"{pkg}.{MODULES[policy]}"]
        images = auto_augment.auto_augment_image_net(images, shape=fn.peek_image_shape(jpegs))
    elif policy == "trivialaugment":
        images = sys.modules[f"{pkg}.{MODULES[policy]}"].trivial_augment_wide(images)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      crop=(IMAGE_SIZE, IMAGE_SIZE),
                                      mean=pipelines.IMAGENET_MEAN, std=pipelines.IMAGENET_STD)
    return images, labels


def measure_efficientnet(loaded, root, policies, repeats, iterations, warmup, log):
    """{policy: {label: [Timing per repeat]}}: the pipeline with each policy on each backend,
    batch 64, num_threads=2, interleaved (the first backend alternates between repeats)."""
    res = {}
    for policy in policies:
        for rep in range(repeats):
            for b in loaded if rep % 2 == 0 else loaded[::-1]:
                import_policy(b, policy)
                t = pipelines.timed(b, graph, iterations, warmup, conditionals=True,
                                    root=str(root), policy=policy)
                res.setdefault(policy, {}).setdefault(b.label, []).append(t)
                log(f"  efficientnet {policy:14s} {b.label:5s} {t.rate:7.1f} img/s  "
                    f"{t.cpu_ms:.2f} CPU ms/img")
    return res


def table(res):
    """The markdown table of `measure_efficientnet`'s results (medians; ratio = median of the
    paired per-repeat ratios)."""
    rows = []
    for policy, by_label in res.items():
        steps = "crop -> 224x224 -> flip -> " + ("" if policy == "disabled" else "augment -> ")
        rows.append((f"EfficientNet training ({POLICIES[policy]}: {steps}normalize)", by_label))
    return measure.pipeline_table("img", rows, TARGET)


def main(argv=None):
    a, loaded, log = pipelines.standalone(__doc__, argv, options=[(
        "--policies", dict(default="trivialaugment,autoaugment",
                           help="comma-separated: trivialaugment, autoaugment, disabled"))])
    res = measure_efficientnet(loaded, corpus.locate(), a.policies.split(","), a.repeats,
                               a.iterations, a.warmup, log)
    print(table(res))
    return res


if __name__ == "__main__":
    main()
