"""A video classification training pipeline (the input of a 3-D CNN such as C3D or R(2+1)D) as
a benchmark graph written once against `(fn, types)`, so the same code builds dali's and real
DALI's pipeline.

experimental.readers.video (file_root: one folder a class; sequences of 16 frames, shuffled)
-> resize 171x128 -> crop_mirror_normalize (a random 112x112 crop, mirrored on a coin, FLOAT,
ImageNet mean/std, layout CFHW).  The data set: 32 VP9 clips of 48 frames at 160x120 (VP9: real
DALI's CPU decoder reads it), panning over the bundled photos, in 4 class folders.

    python -m bench.video               # both backends, interleaved repeats, on fresh clips
"""

from __future__ import annotations

import io
import pathlib
import tempfile

import numpy as np

from bench import measure, opcase, pipelines

TARGET = 1.0          # the throughput ratio dali / real DALI aimed at
SEQUENCE_LENGTH = 16
BATCH_SIZE = 8        # sequences per batch
NUM_CLIPS = 32
CLIP_FRAMES = 48
CLIP_SIZE = (120, 160)


def write_clips(root, count=NUM_CLIPS, frames=CLIP_FRAMES, size=CLIP_SIZE):
    """Write `count` VP9 clips (webm) of `frames` frames of `size` (h, w) into 4 class
    folders of `root`: each pans across one of the bundled photos.  Returns `root`."""
    import av
    import cv2
    photos = sorted(opcase.PHOTOS.glob("*/*.jpg"))
    root = pathlib.Path(root)
    for i in range(count):
        photo = cv2.cvtColor(cv2.imread(str(photos[i % len(photos)])), cv2.COLOR_BGR2RGB)
        photo = cv2.resize(photo, (size[1] * 2, size[0] * 2), interpolation=cv2.INTER_AREA)
        folder = root / f"class{i % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        with av.open(buf, "w", format="webm") as container:
            stream = container.add_stream("libvpx-vp9", rate=25,
                                          options={"deadline": "realtime", "cpu-used": "8"})
            stream.height, stream.width = size
            stream.pix_fmt = "yuv420p"
            stream.gop_size = 12
            for k in range(frames):
                x = (3 * k + 7 * i) % size[1]
                y = (k + 5 * i) % size[0]
                image = np.ascontiguousarray(photo[y:y + size[0], x:x + size[1]])
                for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                    container.mux(packet)
            for packet in stream.encode():
                container.mux(packet)
        (folder / f"clip{i:03d}.webm").write_bytes(buf.getvalue())
    return str(root)


def graph(fn, types, file_root, shard_id=0, num_shards=1):
    """The training graph: (sequences (3, 16, 112, 112) float, labels (1,) int32)."""
    frames, labels = fn.experimental.readers.video(
        file_root=file_root, sequence_length=SEQUENCE_LENGTH, random_shuffle=True,
        initial_fill=64, shard_id=shard_id, num_shards=num_shards, name="Reader")
    frames = fn.resize(frames, resize_x=171, resize_y=128)
    frames = fn.crop_mirror_normalize(
        frames, crop=(112, 112), crop_pos_x=fn.random.uniform(range=(0.0, 1.0)),
        crop_pos_y=fn.random.uniform(range=(0.0, 1.0)), mirror=fn.random.coin_flip(),
        dtype=types.FLOAT, output_layout="CFHW", mean=pipelines.IMAGENET_MEAN,
        std=pipelines.IMAGENET_STD)
    return frames, labels


def measure_video(loaded, file_root, repeats, iterations, warmup, log):
    """{label: [Timing per repeat]}: the pipeline on each backend, batch 8 sequences,
    num_threads=2, interleaved (the first backend alternates between repeats)."""
    res = {}
    for rep in range(repeats):
        for b in loaded if rep % 2 == 0 else loaded[::-1]:
            t = pipelines.timed(b, graph, iterations, warmup, batch_size=BATCH_SIZE,
                                file_root=file_root)
            res.setdefault(b.label, []).append(t)
            log(f"  video   {b.label:5s} {t.rate:7.1f} sequences/s  "
                f"{t.cpu_ms:.2f} CPU ms/sequence")
    return res


def table(res):
    """The markdown table of `measure_video`'s results (medians; ratio = median of the paired
    per-repeat ratios)."""
    return measure.pipeline_table("sequence", [(
        "video classification (readers.video 16 frames -> resize 171x128 -> "
        "crop_mirror_normalize 112x112 CFHW)", res)], TARGET)


def main(argv=None):
    a, loaded, log = pipelines.standalone(__doc__, argv)
    with tempfile.TemporaryDirectory(prefix="dali-video-") as tmp:
        res = measure_video(loaded, write_clips(tmp), a.repeats, a.iterations, a.warmup, log)
    print(table(res))
    return res


if __name__ == "__main__":
    main()
