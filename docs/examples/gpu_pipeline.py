"""A GPU training input pipeline: JPEGs decoded for the GPU, then cropped, resized, mirrored and
normalized there, on CUDA device 0.

Run from the repository root (needs an NVIDIA GPU and CuPy: `pip install "dali[gpu]"`):

    python docs/examples/gpu_pipeline.py
    python docs/examples/gpu_pipeline.py --data-dir train/ --batch-size 64   # class folders

The ResNet-50 training input of DALI's examples: `readers.file` reads shuffled JPEGs and their
labels (one folder a class; the photos bundled with dali by default), `decoders.image` with
`device="mixed"` hands the decoded images to the GPU, and from there every step runs on the
device: `random_resized_crop` to 224x224, then `crop_mirror_normalize` into a CHW float tensor
with the ImageNet mean and standard deviation, mirrored where `random.coin_flip` says so (the
coin is drawn on the CPU and read as a per-sample argument).  The labels are copied to the GPU
with `.gpu()`, so both outputs are `TensorListGPU`s (CuPy, PyTorch and JAX take their samples
without a copy; see docs/gpu.md).

Without a CUDA device the example prints why and exits with status 0.
"""

import argparse
import pathlib

import numpy as np

from dali import backend, fn, pipeline_def, types

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "dali" / "data" / "images"
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]
NO_GPU = ("gpu_pipeline: no CUDA device found, so there is nothing to run: this example needs "
          "an NVIDIA GPU with its driver and CuPy (pip install \"dali[gpu]\").")


@pipeline_def
def training_pipe(data_dir, size=224):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.random_resized_crop(images, size=(size, size))
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      mean=MEAN, std=STD, mirror=fn.random.coin_flip())
    return images, labels.gpu()


def run(batch_size=16, iterations=3, data_dir=None, num_threads=2, seed=0, device_id=0):
    """Run `iterations` batches on `device_id`; returns them as (images, labels) numpy
    arrays (copied to the host to be printed)."""
    pipe = training_pipe(str(data_dir or IMAGES), batch_size=batch_size,
                         num_threads=num_threads, device_id=device_id, seed=seed)
    pipe.build()
    batches = []
    for i in range(iterations):
        images, labels = pipe.run()
        kind = type(images).__name__
        images = np.array(images.as_cpu().as_tensor())
        labels = np.array(labels.as_cpu().as_tensor()).ravel()
        print(f"batch {i}: images {images.shape} {images.dtype} ({kind}), labels "
              f"{labels.tolist()}, mean {images.mean():+.3f}, std {images.std():.3f}")
        batches.append((images, labels))
    return batches


def main(batch_size=16, iterations=3, data_dir=None):
    """`run` on device 0, or the message saying why not (None) where there is no CUDA
    device."""
    if backend.GetCUDADeviceCount() == 0:
        print(NO_GPU)
        return None
    return run(batch_size, iterations, data_dir)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None, help="a directory of class folders of JPEGs")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--iterations", type=int, default=3)
    a = ap.parse_args()
    main(a.batch_size, a.iterations, a.data_dir)
