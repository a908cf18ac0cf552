"""video/_clip: the quick open (stream probing that decodes nothing) indexes and decodes VP8
and VP9 clips as PyAV's full open does; other codecs take the full open, and so does the next
clip opened on the same thread."""

import dataclasses

import numpy as np
import pytest

av = pytest.importorskip("av")
import video_clips  # noqa: E402

from dali.ops.video import _clip  # noqa: E402


def opened(data, quick, monkeypatch):
    """(the index of `data` opened with the quick open tried first or not, whether the thread
    tries it for its next clip, all the clip's frames)."""
    monkeypatch.setattr(_clip._THREAD, "quick_open", quick, raising=False)
    clip = _clip.Clip(av, data)
    frames = np.empty((clip.count, clip.height, clip.width, 3), np.uint8)
    _clip.decode_into(clip, np.arange(clip.count), frames, np.zeros(3, np.uint8))
    return clip.index, _clip._THREAD.quick_open, frames


@pytest.mark.parametrize("codec, container, quick", [
    ("libvpx-vp9", "webm", True), ("libvpx", "webm", True), ("libvpx-vp9", "matroska", True),
    ("libx264", "mp4", False), ("mpeg4", "avi", False), ("mjpeg", "avi", False)])
def test_quick_open_gives_the_full_opens_index_and_frames(codec, container, quick,
                                                          monkeypatch):
    if not video_clips.available(codec):
        pytest.skip(f"PyAV has no {codec} encoder")
    data = np.frombuffer(video_clips.encode(codec, 14, gop=5, bframes=2, container=container),
                         np.uint8)
    full, _, want = opened(data, False, monkeypatch)
    tried, next_quick, got = opened(data, True, monkeypatch)
    assert next_quick == quick
    for field in dataclasses.fields(_clip.Index):
        np.testing.assert_array_equal(getattr(tried, field.name), getattr(full, field.name))
    np.testing.assert_array_equal(got, want)
    assert video_clips.frame_numbers(got) == list(range(14))


@pytest.mark.parametrize("data", [_clip.MATROSKA + bytes(200), bytes(200)])
def test_an_open_that_fails_gives_the_full_opens_error(data, monkeypatch):
    data = np.frombuffer(data, np.uint8)
    messages = []
    for quick in (False, True):
        monkeypatch.setattr(_clip._THREAD, "quick_open", quick, raising=False)
        with pytest.raises(_clip.VideoError) as e:
            _clip.Clip(av, data)
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith("cannot open the video: ")
