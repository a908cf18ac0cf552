"""Train a small CNN for one epoch on the bundled photos through DALIClassificationIterator.

Run from the repository root (needs PyTorch; no torchvision):

    python docs/examples/train_small_cnn.py

The pipeline reads the images of dali/data/images (one class per folder), decodes them, crops
and resizes them to 64x64 with a random mirror, and normalizes them into CHW float tensors;
the iterator hands them to PyTorch without a copy.
"""

import argparse
import pathlib
import time

import torch
from torch import nn

import dali
from dali import fn, pipeline_def, types
from dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy

IMAGES = pathlib.Path(dali.__file__).parent / "data" / "images"


@pipeline_def
def train_pipeline(size):
    jpegs, labels = fn.readers.file(file_root=str(IMAGES), random_shuffle=True, name="Reader")
    images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB)
    images = fn.resize(images, size=(size, size))
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      mean=[127.5] * 3, std=[64.0] * 3,
                                      mirror=fn.random.coin_flip())
    return images, labels


def small_cnn(num_classes):
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.LazyLinear(num_classes))


def main(batch_size=4, epochs=1, size=64, num_threads=2):
    pipe = train_pipeline(size, batch_size=batch_size, num_threads=num_threads,
                          device_id=None, seed=0)
    loader = DALIClassificationIterator(pipe, reader_name="Reader",
                                        last_batch_policy=LastBatchPolicy.PARTIAL)
    num_classes = len([d for d in IMAGES.iterdir() if d.is_dir()])
    model = small_cnn(num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        seen, start, total = 0, time.perf_counter(), 0.0
        for batch in loader:
            images, labels = batch[0]["data"], batch[0]["label"].reshape(-1).long()
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
            seen += images.shape[0]
            total += loss.item() * images.shape[0]
        rate = seen / (time.perf_counter() - start)
        print(f"epoch {epoch}: {seen} images, mean loss {total / seen:.3f}, "
              f"{rate:.1f} images/s")
        loader.reset()
    return seen


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=1)
    args = ap.parse_args()
    main(args.batch_size, args.epochs)
