"""The EfficientNet training pipeline of DALI's EfficientNet example, with automatic
augmentation, on the CPU.

Run from the repository root:

    python docs/examples/efficientnet_pipeline.py                            # TrivialAugment
    python docs/examples/efficientnet_pipeline.py --augmentation autoaugment
    python docs/examples/efficientnet_pipeline.py --data-dir train/          # class folders

As in DALI's example (pytorch/efficientnet/image_classification/dali.py, `training_pipe`), the
pipeline reads shuffled JPEGs with their labels (`readers.file`: one folder a class), decodes
a random crop of them (`decoders.image_random_crop`, aspect ratio in [3/4, 4/3], area in
[0.08, 1]), resizes it to 224x224 (linear, no antialiasing), mirrors it on a coin, applies
TrivialAugment Wide (`dali.auto_aug.trivial_augment.trivial_augment_wide`) or AutoAugment's
ImageNet policy (`dali.auto_aug.auto_augment.auto_augment_image_net`, translations relative to
the JPEG's shape), and normalizes into a CHW float tensor with the ImageNet mean and standard
deviation.  The automatic augmentations choose per sample with conditionals, so the pipeline
is defined with `enable_conditionals=True`.  Without `--data-dir` it reads the photos bundled
with dali (dali/data/images).
"""

import argparse
import pathlib

import numpy as np

from dali import fn, pipeline_def, types
from dali.auto_aug import auto_augment, trivial_augment

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "dali" / "data" / "images"
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@pipeline_def(enable_conditionals=True)
def training_pipe(data_dir, image_size=224, automatic_augmentation="trivialaugment",
                  shard_id=0, num_shards=1):
    jpegs, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id,
                                    num_shards=num_shards, random_shuffle=True,
                                    pad_last_batch=True, name="Reader")
    images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB,
                                           random_aspect_ratio=[0.75, 4.0 / 3.0],
                                           random_area=[0.08, 1.0])
    images = fn.resize(images, resize_x=image_size, resize_y=image_size,
                       interp_type=types.INTERP_LINEAR, antialias=False)
    images = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))
    if automatic_augmentation == "autoaugment":
        images = auto_augment.auto_augment_image_net(images, shape=fn.peek_image_shape(jpegs))
    elif automatic_augmentation == "trivialaugment":
        images = trivial_augment.trivial_augment_wide(images)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      crop=(image_size, image_size), mean=MEAN, std=STD)
    return images, labels


def main(batch_size=16, iterations=3, data_dir=None, augmentation="trivialaugment",
         num_threads=2, seed=0):
    """Run `iterations` batches; returns them as (images, labels) numpy arrays."""
    pipe = training_pipe(str(data_dir or IMAGES), automatic_augmentation=augmentation,
                         batch_size=batch_size, num_threads=num_threads, device_id=None,
                         seed=seed)
    pipe.build()
    batches = []
    for i in range(iterations):
        images, labels = pipe.run()
        images, labels = np.array(images.as_tensor()), np.array(labels.as_tensor()).ravel()
        print(f"batch {i}: images {images.shape} {images.dtype}, labels {labels.tolist()}, "
              f"mean {images.mean():+.3f}, std {images.std():.3f}")
        batches.append((images, labels))
    return batches


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None, help="a directory of class folders of JPEGs")
    ap.add_argument("--augmentation", default="trivialaugment",
                    choices=["trivialaugment", "autoaugment", "disabled"])
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--iterations", type=int, default=3)
    a = ap.parse_args()
    main(a.batch_size, a.iterations, a.data_dir, a.augmentation)
