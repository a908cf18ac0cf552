"""fn.readers.sequence: stream discovery, sequences (step, stride), decoded frames (image_type),
order over shards, errors."""

from __future__ import annotations

import importlib
import os

import cv2
import numpy as np
import pytest

from dali.ops.readers import sequence as seq_module

STREAMS = {"s0": 5, "s1": 3, "s2": 7}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """3 streams of 6x8 frames (PNG, and every third frame a JPEG with an upper-case
    extension), plus files the reader ignores; `frames[stream][i]` is frame i as RGB."""
    root = tmp_path_factory.mktemp("seq")
    rng = np.random.default_rng(0)
    frames = {}
    for s, n in STREAMS.items():
        (root / s).mkdir()
        frames[s] = []
        for i in range(n):
            bgr = rng.integers(0, 255, (6, 8, 3), dtype=np.uint8)
            path = root / s / (f"{i:03d}" + (".JPG" if i % 3 == 0 else ".png"))
            cv2.imwrite(str(path), bgr)
            frames[s].append(cv2.cvtColor(cv2.imread(str(path)), cv2.COLOR_BGR2RGB))
    (root / "s0" / "notes.txt").write_text("not a frame")
    (root / "top.png").write_bytes((root / "s0" / "001.png").read_bytes())
    return root, frames


def read(root, pkg="dali", iterations=3, batch_size=3, **kwargs):
    mod = importlib.import_module(pkg)
    fns = importlib.import_module(pkg + ".fn")

    @mod.pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=3)
    def pipe():
        return fns.readers.sequence(file_root=str(root), name="R", **kwargs)

    p = pipe()
    p.build()
    out = []
    for _ in range(iterations):
        (s,) = p.run()
        assert s.layout() == "FHWC"
        out.append([np.array(s[i]) for i in range(len(s))])
    return out, p.reader_meta("R")


def test_sequences_step_and_stride():
    paths, table = seq_module.sequences([["a0", "a1", "a2", "a3", "a4"], ["b0", "b1", "b2"]],
                                        2, 2, 2)
    assert [[paths[f] for f in row] for row in table.tolist()] == [["a0", "a2"], ["a2", "a4"],
                                                                   ["b0", "b2"]]


@pytest.mark.parametrize("length, step, stride", [(2, 1, 1), (3, 2, 1), (2, 2, 3), (7, 1, 1)])
def test_frames(root, length, step, stride):
    directory, frames = root
    want = [np.stack(frames[s][i:i + (length - 1) * stride + 1:stride])
            for s in STREAMS for i in range(0, STREAMS[s], step)
            if i + (length - 1) * stride < STREAMS[s]]
    out, meta = read(directory, iterations=1, batch_size=len(want), sequence_length=length,
                     step=step, stride=stride)
    assert meta["epoch_size"] == len(want)
    for got, expected in zip(out[0], want, strict=True):
        assert got.shape == (length, 6, 8, 3) and got.dtype == np.uint8
        np.testing.assert_array_equal(got[:, :, :, :], expected)


def test_gray_frames(root):
    directory, frames = root
    out, _ = read(directory, iterations=1, batch_size=1, sequence_length=2, stride=2,
                  image_type=2)                        # GRAY
    assert out[0][0].shape == (2, 6, 8, 1)


def test_errors(root, tmp_path):
    with pytest.raises(RuntimeError, match="The number of input samples: 0"):
        read(tmp_path, sequence_length=2)
    (tmp_path / "s").mkdir()
    cv2.imwrite(str(tmp_path / "s" / "0.png"), np.zeros((4, 4, 3), np.uint8))
    cv2.imwrite(str(tmp_path / "s" / "1.png"), np.zeros((5, 4, 3), np.uint8))
    (tmp_path / "s" / "2.png").write_bytes(b"not a png")
    with pytest.raises(RuntimeError, match=r"the frames of a sequence must have one shape: "
                                           r".*1.png is \(5, 4, 3\), the first frame "
                                           r"\(4, 4, 3\)"):
        read(tmp_path, sequence_length=2, batch_size=1)
    with pytest.raises(RuntimeError, match="cannot decode .*2.png"):
        read(tmp_path, sequence_length=1, batch_size=3)
    with pytest.raises(RuntimeError, match="stride must be positive"):
        read(tmp_path, sequence_length=1, stride=0)
    with pytest.raises(RuntimeError, match="Format not supported. Only RGB, BGR, GRAY or "
                                           "ANY_DATA are supported on this operator"):
        read(tmp_path, sequence_length=1, image_type=3)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"sequence_length": 2}, {"sequence_length": 2, "step": 2, "stride": 2},
    {"sequence_length": 3, "random_shuffle": True, "initial_fill": 4},
    {"sequence_length": 2, "num_shards": 3, "shard_id": 1, "pad_last_batch": True},
    {"sequence_length": 1, "num_shards": 2, "shard_id": 1, "stick_to_shard": True},
    {"sequence_length": 2, "image_type": 1}, {"sequence_length": 2, "image_type": 4},
])
def test_matches_dali(root, kwargs):
    pytest.importorskip("nvidia.dali")
    directory, _ = root
    mine, meta = read(directory, iterations=5, **kwargs)
    with pytest.warns(Warning):                       # DALI deprecates the operator
        theirs, their_meta = read(directory, "nvidia.dali", iterations=5, **kwargs)
    assert meta == their_meta
    for a, b in zip(mine, theirs, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


def test_frame_removed_after_listing(tmp_path):
    from dali import fn, pipeline_def

    (tmp_path / "s").mkdir()
    for i in range(3):
        cv2.imwrite(str(tmp_path / "s" / f"{i}.png"), np.zeros((4, 4, 3), np.uint8))

    @pipeline_def(batch_size=1, num_threads=1, device_id=None, prefetch_queue_depth=1)
    def pipe():
        return fn.readers.sequence(file_root=str(tmp_path), sequence_length=2,
                                   prefetch_queue_depth=1)

    p = pipe()
    p.build()
    (tmp_path / "s" / "2.png").unlink()
    p.run()                                   # 0.png, 1.png (read ahead or not: both exist)
    with pytest.raises(RuntimeError, match=r"Failed to read file: .*2.png: No such file"):
        p.run()
        p.run()


def test_frames_replaced_with_another_size_are_read_whole(tmp_path):
    from dali import fn, pipeline_def

    (tmp_path / "s").mkdir()

    def frame(side, value):               # the stream's one frame, replaced by a rename
        img = np.full((side, side, 3), value, np.uint8)
        cv2.imwrite(str(tmp_path / "0.png"), img)
        os.replace(tmp_path / "0.png", tmp_path / "s" / "0.png")
        return img[np.newaxis]

    @pipeline_def(batch_size=1, num_threads=1, device_id=None, prefetch_queue_depth=1)
    def pipe():
        return fn.readers.sequence(file_root=str(tmp_path), sequence_length=1,
                                   prefetch_queue_depth=1)

    old = frame(4, 10)
    p = pipe()
    p.build()
    np.testing.assert_array_equal(np.array(p.run()[0][0]), old)
    for side, value in ((6, 20), (3, 30)):            # a larger frame, then a smaller one
        new = frame(side, value)
        # the first batch may have been read ahead before the frame was replaced
        got = [np.array(p.run()[0][0]) for _ in range(3)]
        assert got[0].shape in (old.shape, new.shape)
        for g in got[1:]:
            np.testing.assert_array_equal(g, new)
        old = new


def test_on_error_skip_drops_sequences_with_a_bad_frame(tmp_path):
    from dali import fn, pipeline_def

    frames = {}
    for s in ("a", "b", "c"):
        (tmp_path / s).mkdir()
        for i in range(4):
            img = np.full((4, 6, 3), (ord(s) * 4 + i) % 256, np.uint8)
            cv2.imwrite(str(tmp_path / s / f"{i}.png"), img)
            frames[s, i] = img
    (tmp_path / "a" / "3.png").write_bytes(b"not a png")           # cannot be decoded

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe(on_error):
        return fn.readers.sequence(file_root=str(tmp_path), sequence_length=2, step=2,
                                   on_error=on_error, name="R")

    p = pipe("skip")
    p.build()
    (tmp_path / "c" / "1.png").unlink()                          # cannot be read
    # sequences of 2 frames, step 2: a0-1, a2-3 (bad), b0-1, b2-3, c0-1 (bad), c2-3
    with pytest.warns(RuntimeWarning, match=r"2 sample\(s\) that could not be read"):
        got = [np.array(x) for _ in range(2) for x in p.run()[0]]
    want = [("a", 0), ("b", 0), ("b", 2), ("c", 2)]
    for x, (s, i) in zip(got, want, strict=True):
        np.testing.assert_array_equal(x, np.stack([frames[s, i], frames[s, i + 1]])[..., ::-1])
    skipped = p.reader_meta("R")["skipped"]
    assert [os.path.relpath(x["sample"], tmp_path) for x in skipped][:2] == ["a/2.png",
                                                                           "c/0.png"]
    assert "cannot decode" in skipped[0]["reason"] and "a/3.png" in skipped[0]["reason"]
    assert "Failed to read file" in skipped[1]["reason"] and "c/1.png" in skipped[1]["reason"]
    p = pipe("raise")
    p.build()
    with pytest.raises(RuntimeError, match="cannot decode .*a/3.png"):
        p.run()


@pytest.mark.parametrize("image_type", [0, 2])      # RGB, GRAY: the channels of the output
def test_on_error_skip_drops_sequences_of_frames_of_different_shapes(tmp_path, image_type):
    from dali import fn, pipeline_def

    frames = {}
    for s in ("a", "b"):
        (tmp_path / s).mkdir()
        for i in range(4):
            shape = (5, 6, 3) if (s, i) == ("a", 3) else (4, 6, 3)    # a/3.png: 5 rows
            frames[s, i] = np.full(shape, (ord(s) * 4 + i) % 256, np.uint8)
            cv2.imwrite(str(tmp_path / s / f"{i}.png"), frames[s, i])

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.readers.sequence(file_root=str(tmp_path), sequence_length=2, step=2,
                                   image_type=image_type, on_error="skip", name="R")

    p = pipe()
    p.build()
    # a0-1, a2-3 (a 4x6 and a 5x6 frame), b0-1, b2-3: an epoch of 3 good sequences
    with pytest.warns(RuntimeWarning, match=r"1 sample\(s\) that could not be read"):
        got = [np.array(x) for _ in range(2) for x in p.run()[0]]
    for x, (s, i) in zip(got, [("a", 0), ("b", 0), ("b", 2), ("a", 0)], strict=True):
        want = np.stack([frames[s, i], frames[s, i + 1]])
        want = want[..., ::-1] if image_type == 0 else want[..., :1]
        np.testing.assert_array_equal(x, want)
    skipped = p.reader_meta("R")["skipped"]
    # (once more when the next epoch was read ahead)
    assert {os.path.relpath(x["sample"], tmp_path) for x in skipped} == {"a/2.png"}
    c = 3 if image_type == 0 else 1
    assert skipped[0]["reason"] == (f"the frames of a sequence must have one shape: "
                                    f"{tmp_path / 'a' / '3.png'} is (5, 6, {c}), the first "
                                    f"frame (4, 6, {c})")


def test_on_error_skip_compares_the_channels_known_before_decoding(tmp_path):
    """ANY_DATA: a gray and a color JPEG in one sequence (1 and 3 channels) are skipped."""
    from dali import fn, pipeline_def

    (tmp_path / "a").mkdir()
    for i in range(4):
        img = np.full((4, 6, 3), 10 * i, np.uint8)
        cv2.imwrite(str(tmp_path / "a" / f"{i}.jpg"), img[..., 0] if i == 1 else img)

    @pipeline_def(batch_size=1, num_threads=1, device_id=None, exec_async=False,
                  exec_pipelined=False)
    def pipe():
        return fn.readers.sequence(file_root=str(tmp_path), sequence_length=2, step=2,
                                   image_type=4, on_error="skip", name="R")     # ANY_DATA

    p = pipe()
    p.build()
    with pytest.warns(RuntimeWarning, match=r"1 sample\(s\) that could not be read"):
        (out,) = p.run()
    assert np.array(out[0]).shape == (2, 4, 6, 3)                # a2-3; a0-1 skipped
    (skipped,) = p.reader_meta("R")["skipped"]
    assert skipped["reason"].endswith(f"{tmp_path / 'a' / '1.jpg'} is (4, 6, 1), the first "
                                      "frame (4, 6, 3)")


def _frames_of_other_channels(root):
    """Streams a, b, c of four 4x6 PNG frames, RGB but for a/3.png (gray) and c/1.png (RGBA);
    {(stream, frame): the frame as ANY_DATA decodes it}."""
    frames = {}
    for s in ("a", "b", "c"):
        (root / s).mkdir()
        for i in range(4):
            c = {("a", 3): 1, ("c", 1): 4}.get((s, i), 3)
            v = (ord(s) - ord("a")) * 60 + 10 * i
            stored = np.broadcast_to(np.arange(v, v + c, dtype=np.uint8), (4, 6, c)).copy()
            stored[1, 2] += 7
            cv2.imwrite(str(root / s / f"{i}.png"), stored)
            frames[s, i] = stored[..., [2, 1, 0, 3][:c]] if c > 1 else stored
    return frames


def test_on_error_skip_drops_sequences_of_frames_with_other_channels(tmp_path):
    """ANY_DATA of PNG frames: the channels are known only once decoded (a gray and an RGBA
    frame among RGB frames)."""
    from dali import fn, pipeline_def, types

    frames = _frames_of_other_channels(tmp_path)

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.readers.sequence(file_root=str(tmp_path), sequence_length=2, step=2,
                                   image_type=types.ANY_DATA, on_error="skip", name="R")

    p = pipe()
    p.build()
    # a0-1, a2-3 (a/3.png gray), b0-1, b2-3, c0-1 (c/1.png RGBA), c2-3
    with pytest.warns(RuntimeWarning, match=r"2 sample\(s\) that could not be read"):
        got = [np.array(x) for _ in range(3) for x in p.run()[0]]
    want = [("a", 0), ("b", 0), ("b", 2), ("c", 2), ("a", 0), ("b", 0)]
    for x, (s, i) in zip(got, want, strict=True):
        np.testing.assert_array_equal(x, np.stack([frames[s, i], frames[s, i + 1]]))
    skipped = p.reader_meta("R")["skipped"]
    assert skipped[:2] == [
        {"sample": str(tmp_path / "a" / "2.png"),
         "reason": f"the frames of a sequence must have one shape: {tmp_path / 'a' / '3.png'} "
                   "is (4, 6, 1), the first frame (4, 6, 3)"},
        {"sample": str(tmp_path / "c" / "0.png"),
         "reason": f"the frames of a sequence must have one shape: {tmp_path / 'c' / '1.png'} "
                   "is (4, 6, 4), the first frame (4, 6, 3)"}]


def _run_each(root, pkg, iterations):
    """Per iteration of a synchronous pipeline of batch 1 reading `root` (ANY_DATA, sequences
    of 2 frames, step 2): the sequence, or the error raised."""
    mod = importlib.import_module(pkg)
    fns = importlib.import_module(pkg + ".fn")

    @mod.pipeline_def(batch_size=1, num_threads=1, device_id=None, exec_async=False,
                      exec_pipelined=False)
    def pipe():
        return fns.readers.sequence(file_root=str(root), sequence_length=2, step=2,
                                    image_type=mod.types.ANY_DATA)

    p = pipe()
    p.build()
    out = []
    for _ in range(iterations):
        try:
            out.append(np.array(p.run()[0][0]))
        except RuntimeError as e:
            out.append(e)
    return out


def test_frames_with_other_channels_raise_naming_the_frame(tmp_path):
    frames = _frames_of_other_channels(tmp_path)
    first, error, after = _run_each(tmp_path, "dali", 3)
    np.testing.assert_array_equal(first, np.stack([frames["a", 0], frames["a", 1]]))
    assert "dali.fn.readers.sequence: the frames of a sequence must have one shape: " \
           f"{tmp_path / 'a' / '3.png'} is (4, 6, 1), the first frame (4, 6, 3)" in str(error)
    np.testing.assert_array_equal(after, np.stack([frames["b", 0], frames["b", 1]]))


@pytest.mark.oracle
def test_frames_with_other_channels_raise_as_in_dali(tmp_path):
    """DALI raises in the same iteration (its pipeline is then unusable; dali's goes on)."""
    pytest.importorskip("nvidia.dali")
    _frames_of_other_channels(tmp_path)
    mine = _run_each(tmp_path, "dali", 2)
    with pytest.warns(Warning):                       # DALI deprecates the operator
        theirs = _run_each(tmp_path, "nvidia.dali", 2)
    np.testing.assert_array_equal(mine[0], theirs[0])
    assert isinstance(mine[1], RuntimeError)
    assert "Expected all frames to have same shape. (4, 6, 1) != ( 4, 6, 3)" in str(theirs[1])
