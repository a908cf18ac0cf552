"""A video classification training pipeline (the input of a 3-D CNN), end to end on the CPU.

Run from the repository root:

    python docs/examples/video_pipeline.py                      # on generated clips
    python docs/examples/video_pipeline.py --file-root videos/  # one folder of videos a class

The pipeline reads sequences of 16 consecutive frames from the videos (fn.experimental.readers
.video: each folder of `--file-root` is a class, labelled in sorted order; the sequences of all
videos are shuffled), resizes their frames to 171x128, and takes a random 112x112 crop of each
sequence (the same window for all its frames), mirrored on a coin and normalized with the
ImageNet mean and standard deviation into a float tensor of layout CFHW: (3, 16, 112, 112),
what C3D / R(2+1)D-style networks take.  Decoding needs PyAV (`pip install "dali[video]"`).
Without `--file-root`, 32 small VP9 clips panning over the bundled photos are written to a
temporary directory (bench/video.py).
"""

import argparse
import pathlib
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:   # bench/ (the clip generator)
    sys.path.insert(0, str(ROOT))

from bench.video import write_clips  # noqa: E402
from dali import fn, pipeline_def, types  # noqa: E402

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@pipeline_def
def video_pipeline(file_root, sequence_length=16, shard_id=0, num_shards=1):
    frames, labels = fn.experimental.readers.video(
        file_root=file_root, sequence_length=sequence_length, random_shuffle=True,
        initial_fill=64, shard_id=shard_id, num_shards=num_shards, name="Reader")
    frames = fn.resize(frames, resize_x=171, resize_y=128)
    frames = fn.crop_mirror_normalize(
        frames, crop=(112, 112), crop_pos_x=fn.random.uniform(range=(0.0, 1.0)),
        crop_pos_y=fn.random.uniform(range=(0.0, 1.0)), mirror=fn.random.coin_flip(),
        dtype=types.FLOAT, output_layout="CFHW", mean=MEAN, std=STD)
    return frames, labels


def main(batch_size=4, iterations=3, file_root=None, num_threads=2, seed=0):
    """Run `iterations` batches; returns [(sequences, labels)] as numpy arrays."""
    with tempfile.TemporaryDirectory(prefix="video-example-") as tmp:
        if file_root is None:
            file_root = write_clips(tmp, count=8, frames=32)
        pipe = video_pipeline(file_root, batch_size=batch_size, num_threads=num_threads,
                              device_id=None, seed=seed)
        pipe.build()
        epoch = pipe.reader_meta("Reader")["epoch_size"]
        print(f"{epoch} sequences of 16 frames per epoch")
        batches = []
        for i in range(iterations):
            frames, labels = pipe.run()
            frames, labels = np.array(frames.as_tensor()), np.array(labels.as_tensor())
            print(f"batch {i}: sequences {frames.shape} {frames.dtype}, labels "
                  f"{labels.ravel().tolist()}")
            batches.append((frames, labels))
        del pipe
    return batches


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file-root", default=None, help="one folder of videos a class")
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=3)
    a = ap.parse_args()
    main(a.batch_size, a.iterations, a.file_root)
