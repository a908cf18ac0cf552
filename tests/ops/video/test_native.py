"""video/_native: the C path (libavcodec called from C on clips indexed without libavformat)
gives PyAV's path's index, frames and errors bit for bit, is left for PyAV's where FFmpeg's
versions are not the checked ones or the clip is not plain WebM/Matroska VP8/VP9, and fails
on corrupt clips exactly as PyAV's path does."""

import dataclasses

import numpy as np
import pytest

av = pytest.importorskip("av")
import video_clips  # noqa: E402
from pipeline_utils import run_op  # noqa: E402

from dali.ops.video import _clip, _native  # noqa: E402

pytestmark = pytest.mark.skipif(not _native.available(av),
                                reason="PyAV's FFmpeg is not the one the C path was checked with")


def _encode(codec, frames=12, **kw):
    if not video_clips.available(codec):
        pytest.skip(f"PyAV has no {codec} encoder")
    return np.frombuffer(video_clips.encode(codec, frames, **kw), np.uint8)


def _outcome(data, native, selections=None):
    """(the index, the frames of every selection) of `data` through the C path or PyAV's, or
    the VideoError's message; by default all frames, then the last and the middle one."""
    _clip._THREAD.quick_open = True          # a thread's first clip
    try:
        clip = _clip.Clip(av, data, native=native)
    except _clip.VideoError as e:
        return f"open: {e}"
    try:
        if selections is None:
            selections = [list(range(clip.count)), [clip.count - 1, clip.count // 2]]
        outs = [np.zeros((len(s), clip.height, clip.width, 3), np.uint8) for s in selections]
        picks = [np.asarray(s, np.int64) for s in selections]
        _clip.decode_sequences(clip, picks, outs, np.full(3, 7, np.uint8))
    except _clip.VideoError as e:
        return f"decode: {e}"
    finally:
        clip.close()
    return clip.index, outs


def _assert_same(got, want):
    if isinstance(want, str) or isinstance(got, str):
        assert got == want
        return
    for field in dataclasses.fields(_clip.Index):
        np.testing.assert_array_equal(getattr(got[0], field.name), getattr(want[0], field.name))
    for g, w in zip(got[1], want[1], strict=True):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("codec, container, height, width", [
    ("libvpx-vp9", "webm", 48, 64), ("libvpx-vp9", "matroska", 30, 34),
    ("libvpx-vp9", "webm", 8, 8), ("libvpx", "webm", 48, 64), ("libvpx", "matroska", 26, 42)])
def test_the_c_path_gives_pyavs_index_and_frames(codec, container, height, width):
    data = _encode(codec, 14, gop=4, height=height, width=width, container=container)
    clip = _clip.Clip(av, data)
    assert clip._blocks is not None and clip._container is None
    selections = [list(range(14)), [13, 2, 2, 9, -1, 5], [3, 4, 5, 6], [12], [-1, -1]]
    got = _outcome(data, True, selections)
    want = _outcome(data, False, selections)
    _assert_same(got, want)
    assert video_clips.frame_numbers(got[1][1]) == [13, 2, 2, 9, -1, 5]


def test_clips_in_a_row_on_one_thread_decode_as_each_alone():
    # the thread's codec context is reused (VP9 from a keyframe) or made anew (VP8, sizes)
    clips = [_encode("libvpx-vp9", 6, gop=3), _encode("libvpx", 6, gop=3),
             _encode("libvpx-vp9", 6, gop=3, height=32, width=40), _encode("libvpx-vp9", 6)]
    wants = [_outcome(c, False, [[4, 5, 1]]) for c in clips]
    for data, want in zip(clips + clips[::-1], wants + wants[::-1], strict=True):
        _assert_same(_outcome(data, True, [[4, 5, 1]]), want)


def test_other_containers_and_codecs_take_pyavs_path():
    for codec in ("mjpeg", "mpeg4"):
        data = _encode(codec, 4)
        assert _clip.Clip(av, data)._blocks is None
    assert _native.blocks(av, np.zeros(100, np.uint8)) is None


def test_other_ffmpeg_versions_take_pyavs_path(monkeypatch):
    data = _encode("libvpx-vp9", 6)
    want = _outcome(data, True, [[0, 5]])
    monkeypatch.setitem(_native.MAJORS, "libavcodec", _native.MAJORS["libavcodec"] + 1)
    _native.available.cache_clear()
    try:
        assert not _native.available(av)
        clip = _clip.Clip(av, data)
        assert clip._blocks is None and clip._container is not None
        clip.close()
        _assert_same(_outcome(data, False, [[0, 5]]), want)
    finally:
        monkeypatch.undo()
        _native.available.cache_clear()
    assert _native.available(av)


def _mutants(base, count, rng):
    for _ in range(count):
        data = base.copy()
        kind = rng.integers(4)
        if kind == 0:                        # bit flips
            for _ in range(rng.integers(1, 4)):
                data[rng.integers(data.size)] ^= np.uint8(1 << rng.integers(8))
        elif kind == 1:                      # truncated
            data = data[:rng.integers(1, data.size)].copy()
        elif kind == 2:
            data[rng.integers(data.size)] = rng.integers(256)
        else:
            at = rng.integers(data.size)
            data[at:at + 4] = rng.integers(256, size=len(data[at:at + 4]))
        yield data


@pytest.mark.parametrize("codec, height, width", [("libvpx-vp9", 8, 8), ("libvpx", 48, 64),
                                                  ("libvpx-vp9", 30, 34)])
def test_corrupt_clips_give_pyavs_frames_or_errors(codec, height, width):
    base = _encode(codec, 10, gop=3, height=height, width=width, container="webm")
    rng = np.random.default_rng(14)
    taken = compared = 0
    for data in _mutants(base, 100, rng):
        try:
            want = _outcome(data, False)
        except UnicodeDecodeError:           # PyAV's own failure on metadata that is not UTF-8
            continue
        compared += 1
        taken += _native.blocks(av, data) is not None
        _assert_same(_outcome(data, True), want)
    assert compared > 80 and taken > 30


def test_a_corrupt_clip_fails_the_operator_as_pyavs_path_does(monkeypatch):
    base = _encode("libvpx-vp9", 6, gop=3)
    offset, size = _native.blocks(av, base).table[:2, 4]
    bad = base.copy()
    bad[offset + 1:offset + size] ^= 0x5A    # frame 4's data, after its header's first byte
    assert _native.blocks(av, bad) is not None

    messages = []
    for native in (True, False):             # one call site: the messages name its line
        if not native:
            monkeypatch.setattr(_native, "available", lambda av: False)
        with pytest.raises(RuntimeError) as e:
            run_op(lambda fn, x: fn.decoders.video(x), [[base, bad]])
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    assert "decoders.video" in messages[0] and "cannot decode the video: " in messages[0]


def test_float_outputs_and_changed_files_take_pyavs_path(tmp_path):
    data = _encode("libvpx-vp9", 6, gop=3)
    clip = _clip.Clip(av, data)
    assert _native.places(clip._blocks, [np.zeros((2, 48, 64, 3), np.float32)]) is None
    frames = np.zeros((2, 48, 64, 3), np.float32)
    _clip.decode_sequences(clip, [np.array([5, 1])], [frames], np.zeros(3, np.uint8))
    want = _outcome(data, False, [[5, 1]])[1][0]
    np.testing.assert_array_equal(frames, want.astype(np.float32))
    path = tmp_path / "x.webm"
    path.write_bytes(data.tobytes())
    index = _clip.Clip(av, str(path)).index
    assert _clip.Clip(av, str(path), index)._blocks is not None
    path.write_bytes(_encode("libvpx-vp9", 7, gop=3).tobytes())         # changed since
    assert _clip.Clip(av, str(path), index)._blocks is None
