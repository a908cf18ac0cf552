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

from dali import fn, pipeline_def, types  # noqa: E402


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


def _outputs(graph, device_id, runs):
    @pipeline_def(batch_size=3, num_threads=2, device_id=device_id, seed=5,
                  prefetch_queue_depth=1)
    def pipe():
        return graph()

    p = pipe()
    p.build()
    return [[o.as_cpu() if device_id is not None else o for o in p.run()] for _ in range(runs)]


def test_legacy_readers_video_is_the_experimental_reader_uploaded(emulated_gpu, files, tmp_path):
    """fn.readers.video (DALI's GPU-only reader) on the GPU gives what
    fn.experimental.readers.video gives on the CPU with the mapped arguments: pad_sequences is
    zero padding, a file_list's timestamps round start up and end down (or, with
    file_list_include_preceding_frame, start down and end up), enable_frame_num=True the
    first frame's number, dtype=FLOAT with normalized the values / 255."""
    root = os.path.dirname(os.path.dirname(files[0]))
    listing = tmp_path / "list.txt"
    listing.write_text(f"{files[0]} 4 0.05 0.3\n{files[1]} 7 0.1 0.25\n")

    def legacy():
        frames, labels, first, stamps = fn.readers.video(
            device="gpu", file_root=root, sequence_length=3, stride=2, step=4,
            enable_frame_num=True, enable_timestamps=True, pad_sequences=True)
        floats, _ = fn.readers.video(device="gpu", filenames=files, labels=[], sequence_length=4,
                                     dtype=types.FLOAT, normalized=True)
        listed = fn.readers.video(device="gpu", file_list=str(listing), sequence_length=2,
                                  random_shuffle=True, seed=3)
        early = fn.readers.video(device="gpu", file_list=str(listing), sequence_length=2,
                                 file_list_include_preceding_frame=True)
        return frames, labels, first, stamps, floats, *listed, *early

    def experimental():
        read = fn.experimental.readers.video
        frames, labels, first, stamps = read(
            file_root=root, sequence_length=3, stride=2, step=4, enable_frame_num="scalar",
            enable_timestamps=True, pad_mode="constant")
        uint8, _ = read(filenames=files, labels=[0, 1], sequence_length=4)
        listed = read(file_list=str(listing), sequence_length=2, random_shuffle=True, seed=3,
                      file_list_rounding="start_up_end_down")
        early = read(file_list=str(listing), sequence_length=2)
        return frames, labels, first, stamps, uint8, *listed, *early

    gpu, cpu = _outputs(legacy, 0, 3), _outputs(experimental, None, 3)
    for g_run, c_run in zip(gpu, cpu, strict=True):
        for k, (g, c) in enumerate(zip(g_run, c_run, strict=True)):
            expected = [np.asarray(t) for t in c]
            if k == 4:
                expected = [e.astype(np.float32) / np.float32(255) for e in expected]
            np.testing.assert_equal([np.asarray(t) for t in g], expected)
    assert gpu[0][4].dtype == types.FLOAT and gpu[0][0].layout() == "FHWC"


def test_legacy_readers_video_resize_is_the_reader_then_resize(emulated_gpu, files):
    """fn.readers.video_resize on the GPU gives fn.experimental.readers.video followed by
    fn.resize on the CPU: sizes by `size`, `resize_shorter` (with max_size) and `resize_x`,
    filters, antialias and float frames."""
    def legacy():
        read = fn.readers.video_resize
        return (read(device="gpu", filenames=files, sequence_length=3, size=[20, 30]),
                read(device="gpu", filenames=files, sequence_length=2, step=5,
                     resize_shorter=40, max_size=70, interp_type=types.INTERP_CUBIC),
                read(device="gpu", filenames=files, sequence_length=2, resize_x=17,
                     dtype=types.FLOAT, antialias=False, min_filter=types.INTERP_NN))

    def reference():
        read = fn.experimental.readers.video
        return (fn.resize(read(filenames=files, sequence_length=3), size=[20, 30]),
                fn.resize(read(filenames=files, sequence_length=2, step=5), resize_shorter=40,
                          max_size=70, interp_type=types.INTERP_CUBIC),
                fn.resize(fn.cast(read(filenames=files, sequence_length=2),
                                  dtype=types.FLOAT), resize_x=17, antialias=False,
                          min_filter=types.INTERP_NN))

    gpu, cpu = _outputs(legacy, 0, 2), _outputs(reference, None, 2)
    for g_run, c_run in zip(gpu, cpu, strict=True):
        for g, c in zip(g_run, c_run, strict=True):
            assert g.dtype == c.dtype and g.shape() == c.shape() and g.layout() == "FHWC"
            np.testing.assert_equal([np.asarray(t) for t in g], [np.asarray(t) for t in c])
    assert gpu[0][0].shape()[0] == (3, 20, 30, 3)          # size is (H, W)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"channels": 1}, NotImplementedError, "channels=1 is not implemented"),
    ({"normalized": True}, NotImplementedError, "normalized=True is implemented for dtype=FLOAT"),
    ({"dtype": types.INT16}, RuntimeError, "dtype must be UINT8 or FLOAT"),
])
def test_legacy_readers_video_refuses_what_it_does_not_do(emulated_gpu, files, kwargs, error,
                                                          message):
    @pipeline_def(batch_size=1, num_threads=1, device_id=0)
    def pipe():
        return fn.readers.video(device="gpu", filenames=files, sequence_length=2, **kwargs)

    with pytest.raises(error, match=message):
        pipe().build()
