"""fn.experimental.readers.video: the sequences of each file (a NumPy reference of DALI's
enumeration), labels, frame numbers and timestamps, file lists, padding and uniform sampling;
the same batches as real DALI (order with shuffling and sharding, pixels); errors; on_error."""

import os

import numpy as np
import pytest

av = pytest.importorskip("av")
import video_clips  # noqa: E402

# (relative path, codec, frames, first frame number, keyframe interval)
FILES = [("a/x.webm", "libvpx-vp9", 20, 0, 10), ("a/y.webm", "libvpx-vp9", 13, 50, 10),
         ("b/z.webm", "libvpx-vp9", 30, 100, 7), ("b/w.avi", "mjpeg", 9, 200, 1)]
RATE = 25


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    d = tmp_path_factory.mktemp("videos")
    for name, codec, frames, first, gop in FILES:
        video_clips.write(str(d), name, video_clips.encode(codec, frames, first=first, gop=gop,
                                                          rate=RATE))
    return str(d)


def paths(root, k=3):
    return [os.path.join(root, name) for name, *_ in FILES[:k]]


def read(real=False, iterations=4, batch_size=3, **kwargs):
    """The outputs of `iterations` batches: per output, per batch, per sample."""
    import importlib
    pkg = importlib.import_module("nvidia.dali" if real else "dali")

    @pkg.pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=7)
    def pipe():
        out = pkg.fn.experimental.readers.video(**kwargs)
        return tuple(out) if isinstance(out, (list, tuple)) else (out,)

    p = pipe()
    p.build()
    return [[[np.array(t) for t in tl] for tl in p.run()] for _ in range(iterations)]


def reference(counts, firsts, length, step=None, stride=1, pad=False):
    """Frame numbers shown by the sequences of files of `counts` frames (numbered from
    `firsts`), in DALI's order without shuffling (-1 for constant padding)."""
    step = step or length
    out = []
    for count, first in zip(counts, firsts, strict=True):
        for start in range(0, count, step):
            frames = [start + k * stride for k in range(length)]
            if not pad and start + length * stride > count:
                continue
            out.append([first + f if f < count else -1 for f in frames])
    return out


@pytest.mark.parametrize("length, step, stride, pad", [
    (4, None, 1, False), (3, 5, 2, False), (4, 7, 1, True), (1, 3, 4, False), (6, 2, 3, True)])
def test_sequences(root, length, step, stride, pad):
    kwargs = {"step": step} if step else {}
    out = read(filenames=paths(root), sequence_length=length, stride=stride, iterations=5,
               pad_mode="constant" if pad else "none", **kwargs)
    want = reference([20, 13, 30], [0, 50, 100], length, step, stride, pad)
    got = [video_clips.frame_numbers(s) for batch in out for s in batch[0]]
    n = min(len(got), len(want))
    assert got[:n] == want[:n]
    assert all(s.shape[1:] == (48, 64, 3) and s.dtype == np.uint8 for b in out for s in b[0])


def test_labels_frame_numbers_and_timestamps(root):
    out = read(filenames=paths(root), labels=[5, 6, 7], sequence_length=3, step=9, stride=3,
               pad_mode="edge", enable_frame_num="sequence", enable_timestamps=True,
               iterations=2)
    frames, labels, numbers, times = (sum((b[k] for b in out), []) for k in range(4))
    assert [int(lbl[0]) for lbl in labels] == [5, 5, 5, 6, 6, 7]
    assert [n.tolist() for n in numbers] == [[0, 3, 6], [9, 12, 15], [18, 19, 19],
                                             [0, 3, 6], [9, 12, 12], [0, 3, 6]]
    for f, n, t in zip(frames, numbers, times, strict=True):
        assert labels[0].dtype == np.int32 and n.dtype == np.int32 and t.dtype == np.float64
        assert f.shape == (3, 48, 64, 3)
        np.testing.assert_allclose(t, n / RATE)
    assert video_clips.frame_numbers(frames[4]) == [59, 62, 62]


def test_scalar_frame_number_and_no_labels(root):
    out = read(filenames=paths(root, 1), sequence_length=2, enable_frame_num=True,
               iterations=1)
    assert len(out[0]) == 2                           # frames, frame_num: no labels given
    assert [n.tolist() for n in out[0][1]] == [[0], [2], [4]]


def test_file_root_labels_classes(root):
    out = read(file_root=root, sequence_length=5, iterations=3)
    got = [(video_clips.frame_numbers(s)[0], int(lbl[0]))
           for b in out for s, lbl in zip(b[0], b[1], strict=True)]
    assert got[:9] == [(0, 0), (5, 0), (10, 0), (15, 0), (50, 0), (55, 0), (200, 1),
                       (100, 1), (105, 1)]


def test_uniform_sample(root):
    out = read(filenames=paths(root), sequence_length=5, uniform_sample=True, iterations=1)
    got = [video_clips.frame_numbers(s) for s in out[0][0]]
    want = [(np.floor(np.linspace(0, n - 1, 5) + 0.5) + first).astype(int).tolist()
            for n, first in ((20, 0), (13, 50), (30, 100))]
    assert got == want


@pytest.mark.parametrize("line, fmt, rounding, frames", [
    ("b/z.webm 4 2 5", "frames", "start_down_end_up", [2, 3, 4]),
    ("b/z.webm 4 -3 -1", "frames", "start_down_end_up", [27, 28]),
    ("b/z.webm 4 3 40", "frames", "start_down_end_up", list(range(3, 30))),
    ("b/z.webm 4 0.2 0.5", "timestamps", "start_down_end_up", list(range(5, 13))),
    ("b/z.webm 4 0.21 0.49", "timestamps", "start_up_end_down", list(range(6, 12))),
    ("b/z.webm 4 0.21 0.49", "timestamps", "all_up", list(range(6, 13))),
    ("b/z.webm 4 0.2 0.48", "timestamps", "all_down", list(range(5, 11))),
    ("b/z.webm 4 -0.2 1", "timestamps", "start_down_end_up", list(range(0, 25))),
    ("b/z.webm 4", "timestamps", "start_down_end_up", list(range(0, 30))),
])
def test_file_list_ranges(root, tmp_path, line, fmt, rounding, frames):
    name, rest = line.split(" ", 1)
    listing = tmp_path / "list.txt"
    listing.write_text(f"{os.path.join(root, name)} {rest}\n")
    out = read(file_list=str(listing), sequence_length=1, enable_frame_num=True,
               file_list_format=fmt, file_list_rounding=rounding, batch_size=1,
               iterations=len(frames))
    assert [int(b[2][0][0]) for b in out] == frames
    assert all(int(b[1][0][0]) == 4 for b in out)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"sequence_length": 4, "enable_frame_num": True, "enable_timestamps": True},
    {"sequence_length": 3, "step": 5, "stride": 2, "pad_mode": "reflect",
     "enable_frame_num": "sequence"},
    {"sequence_length": 2, "step": 6, "random_shuffle": True, "initial_fill": 4},
    {"sequence_length": 4, "pad_mode": "constant", "fill_value": [10, 20, 30], "step": 11,
     "random_shuffle": True, "stick_to_shard": True, "num_shards": 2, "pad_last_batch": True,
     "enable_timestamps": True, "enable_frame_num": "sequence"},
    {"sequence_length": 2, "num_shards": 3, "shard_id": 2, "step": 6},
    {"sequence_length": 7, "uniform_sample": True, "enable_timestamps": True},
], ids=str)
@pytest.mark.parametrize("source", ["filenames", "file_root"])
def test_oracle(root, kwargs, source):
    where = {"filenames": paths(root, 4)} if source == "filenames" else {"file_root": root}
    ours = read(iterations=6, **where, **kwargs)
    real = read(real=True, iterations=6, **where, **kwargs)
    for a, b in zip(ours, real, strict=True):
        for x, y in zip(a, b, strict=True):
            for s, t in zip(x, y, strict=True):
                assert s.dtype == t.dtype
                np.testing.assert_array_equal(s, t)


@pytest.mark.oracle
def test_oracle_file_list(root, tmp_path):
    listing = tmp_path / "list.txt"
    listing.write_text("".join(f"{os.path.join(root, n)} {k} {r}\n" for k, (n, r) in enumerate(
        [("a/x.webm", ""), ("b/z.webm", "0.2 0.5"), ("a/y.webm", "2 5"),
         ("b/z.webm", "0.13 0.71"), ("b/w.avi", "0.05 0.3")])))
    for rounding in ("start_down_end_up", "all_down"):
        kwargs = {"file_list": str(listing), "sequence_length": 2, "enable_frame_num": True,
                  "file_list_rounding": rounding}
        ours, real = read(iterations=8, **kwargs), read(real=True, iterations=8, **kwargs)
        for a, b in zip(ours, real, strict=True):
            for x, y in zip(a, b, strict=True):
                for s, t in zip(x, y, strict=True):
                    np.testing.assert_array_equal(s, t)


def error_of(**kwargs):
    with pytest.raises(RuntimeError) as e:
        read(iterations=1, **kwargs)
    return str(e.value)


@pytest.mark.parametrize("kwargs, message", [
    ({"sequence_length": 2}, "Exactly one of `filenames`, `file_root` or `file_list`"),
    ({"sequence_length": 0, "files": True}, "sequence_length must be positive, got 0"),
    ({"sequence_length": 2, "stride": 0, "files": True}, "stride must be positive, got 0"),
    ({"sequence_length": 2, "labels": [1], "files": True}, "Provided 1 labels for 3 files."),
    ({"sequence_length": 2, "pad_mode": "wrap", "files": True}, "Invalid pad_mode: wrap"),
    ({"sequence_length": 2, "fill_value": [1, 2], "files": True}, "fill_value must be one value"),
    ({"sequence_length": 2, "enable_frame_num": "all", "files": True},
     "Invalid enable_frame_num: 'all'"),
    ({"sequence_length": 2, "file_list_rounding": "up", "files": True},
     "Invalid file_list_rounding: 'up'"),
])
def test_argument_errors(root, kwargs, message):
    if kwargs.pop("files", False):
        kwargs["filenames"] = paths(root)
    assert message in error_of(**kwargs)


def test_bad_files(root, tmp_path):
    bad = tmp_path / "bad.webm"
    bad.write_bytes(b"not a video" * 50)
    text = error_of(filenames=[paths(root)[0], str(bad)], sequence_length=2)
    assert str(bad) in text and "experimental.readers.video" in text
    text = error_of(filenames=[str(tmp_path / "missing.webm")], sequence_length=2)
    assert "missing.webm" in text


def test_on_error_skip_drops_files_that_vanish(root, tmp_path):
    import shutil

    import dali
    copy = tmp_path / "copy.webm"
    shutil.copy(paths(root)[1], copy)
    files = [paths(root)[0], str(copy)]

    @dali.pipeline_def(batch_size=4, num_threads=1, device_id=None)
    def pipe():
        return dali.fn.experimental.readers.video(filenames=files, sequence_length=4,
                                                  on_error="skip", name="r")

    p = pipe()
    p.build()
    os.remove(copy)
    with pytest.warns(RuntimeWarning, match="could not be read were skipped"):
        got = [video_clips.frame_numbers(s)[0] for _ in range(2) for s in p.run()[0]]
    assert got == [0, 4, 8, 12, 16, 0, 4, 8]
    assert p.reader_meta("r")["skipped"][0]["sample"] == str(copy)


def test_checkpoint_resumes(root):
    import dali

    def make(**kwargs):
        @dali.pipeline_def(batch_size=3, num_threads=2, device_id=None, seed=5,
                           enable_checkpointing=True, **kwargs)
        def pipe():
            return tuple(dali.fn.experimental.readers.video(
                filenames=paths(root, 4), sequence_length=3, random_shuffle=True,
                initial_fill=5, enable_frame_num=True))
        p = pipe()
        p.build()
        return p

    p = make()
    for _ in range(4):
        p.run()
    checkpoint = p.checkpoint()
    expected = [[np.array(t) for t in p.run()[1]] for _ in range(5)]
    restored = make(checkpoint=checkpoint)
    got = [[np.array(t) for t in restored.run()[1]] for _ in range(5)]
    assert [[int(x[0]) for x in b] for b in got] == [[int(x[0]) for x in b] for b in expected]


@pytest.mark.parametrize("codec, container", [("libx264", "mp4"), ("mpeg4", "avi"),
                                              ("libx264", "matroska"), ("libvpx-vp9", "webm")])
def test_seeking_in_files_gives_the_sequential_frames(tmp_path, codec, container):
    """Shuffled sequences of files with B-frames (and AVI, whose index is keyed by decoding
    timestamps) equal the frames of one sequential decode of the file."""
    if not video_clips.available(codec):
        pytest.skip(f"PyAV has no {codec} encoder")
    path = video_clips.write(str(tmp_path), f"clip.{container}", video_clips.encode(
        codec, 45, gop=12, bframes=2, container=container))
    with av.open(path) as c:
        reference = np.stack([f.to_ndarray(format="rgb24", interpolation=0x42002)
                              for f in c.decode(video=0)])
    out = read(filenames=[path], sequence_length=5, step=3, stride=2, random_shuffle=True,
               initial_fill=6, enable_frame_num="sequence", batch_size=4, iterations=3)
    for frames, numbers in ((f, n) for batch in out for f, n in zip(*batch, strict=True)):
        np.testing.assert_array_equal(frames, reference[numbers])


@pytest.mark.parametrize("batch_size", [1, 3, 8])
def test_sequences_of_a_file_in_one_batch_share_its_clip(root, batch_size):
    """A batch's sequences of one file decode from clips shared by up to a thread's share of
    the batch (all of them, some, one each): the frames are those of each sequence alone."""
    out = read(filenames=paths(root, 1), sequence_length=2, step=3, iterations=2,
               batch_size=batch_size)
    want = reference([20], [0], 2, 3)
    got = [video_clips.frame_numbers(s) for batch in out for s in batch[0]]
    assert got == [want[k % len(want)] for k in range(len(got))]


def test_lazy_init_reads_the_same(root):
    eager = read(filenames=paths(root), sequence_length=4, iterations=2)
    lazy = read(filenames=paths(root), sequence_length=4, iterations=2, lazy_init=True)
    for a, b in zip(eager, lazy, strict=True):
        for s, t in zip(a[0], b[0], strict=True):
            np.testing.assert_array_equal(s, t)


@pytest.mark.oracle
@pytest.mark.parametrize("frame_num", [True, "sequence"])
def test_serialized_for_real_dali(root, frame_num):
    """enable_frame_num is a string argument (True passes on as "True"): a serialized
    pipeline runs on real DALI and back on dali."""
    from nvidia.dali import Pipeline as RealPipeline

    import dali

    @dali.pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return tuple(dali.fn.experimental.readers.video(
            filenames=paths(root, 1), sequence_length=3, enable_frame_num=frame_num))

    data = pipe().serialize()
    want = [[0], [3]] if frame_num is True else [[0, 1, 2], [3, 4, 5]]
    for restored in (RealPipeline.deserialize(data), dali.Pipeline.deserialize(data)):
        restored.build()
        assert [np.array(t).tolist() for t in restored.run()[1]] == want
