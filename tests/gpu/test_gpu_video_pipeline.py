"""The video decoders and reader on the emulated device, end to end: fn.decoders.video and
fn.experimental.decoders.video with device="mixed", fn.experimental.inputs.video with
device="mixed" and fn.experimental.readers.video with device="gpu" (decoded on the CPU, then
uploaded) give the CPU pipeline's outputs, as TensorListGPU; clips made with PyAV (skipped
without it)."""

import os

import numpy as np
import pytest

av = pytest.importorskip("av")
import video_clips  # noqa: E402
from cases_filters import assert_same_as_cpu  # noqa: E402

from dali import fn, pipeline_def  # noqa: E402


@pytest.fixture(scope="module")
def clips():
    return [np.frombuffer(video_clips.encode("libvpx-vp9", n, first=first, gop=5), np.uint8)
            for n, first in ((17, 0), (9, 50), (12, 200))]


def test_decoders_video_mixed_equals_cpu(emulated_gpu, clips):
    def graph(on_gpu):
        device = "mixed" if on_gpu else "cpu"
        x = fn.external_source(source=lambda: clips, batch=True)
        return (fn.decoders.video(x, device=device),
                fn.decoders.video(x, device=device, start_frame=2, stride=3,
                                  sequence_length=6, pad_mode="edge"),
                fn.experimental.decoders.video(x, device=device, frames=[4, 0, 4, 30],
                                               fill_value=[9, 8, 7]))

    with pytest.warns(DeprecationWarning, match="experimental.decoders.video"):
        assert_same_as_cpu(graph, len(clips))


def _streamed(on_gpu, clips, runs):
    @pipeline_def(batch_size=2, num_threads=2, device_id=0 if on_gpu else None,
                  prefetch_queue_depth=1)
    def pipe():
        return fn.experimental.inputs.video(name="video", sequence_length=4,
                                            last_sequence_policy="pad",
                                            device="mixed" if on_gpu else "cpu")

    p = pipe()
    p.build()
    for v in clips:
        p.feed_input("video", [v])
    return [p.run()[0] for _ in range(runs)]


def test_inputs_video_mixed_equals_cpu(emulated_gpu, clips):
    gpu, cpu = _streamed(True, clips, 6), _streamed(False, clips, 6)
    for g, c in zip(gpu, cpu, strict=True):
        assert type(g).__name__ == "TensorListGPU"
        assert g.layout() == c.layout() == "FHWC" and g.shape() == c.shape()
        for a, b in zip(g.as_cpu(), c, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert [len(b) for b in cpu] == [2, 2, 1, 2, 1, 2]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("videos"))
    return [video_clips.write(d, name, video_clips.encode(codec, frames, first=first, gop=4))
            for name, codec, frames, first in (("a/x.webm", "libvpx-vp9", 14, 0),
                                               ("b/y.avi", "mjpeg", 9, 100))]


def test_readers_video_gpu_equals_cpu(emulated_gpu, files):
    root = os.path.dirname(os.path.dirname(files[0]))

    def graph(on_gpu):
        device = "gpu" if on_gpu else "cpu"
        frames, labels, numbers, stamps = fn.experimental.readers.video(
            device=device, file_root=root, sequence_length=3, stride=2, step=4,
            enable_frame_num="sequence", enable_timestamps=True, pad_mode="constant")
        padded = fn.experimental.readers.video(
            device=device, filenames=files, sequence_length=5, step=6, pad_mode="edge",
            random_shuffle=True, seed=3)
        return frames, labels, numbers, stamps, padded

    assert_same_as_cpu(graph, 3, iterations=3)
