"""video/_clip: the quick open (stream probing that decodes nothing) indexes and decodes VP8
and VP9 clips as PyAV's full open does; other codecs take the full open, and so does the next
clip opened on the same thread."""

import dataclasses
import io

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


def _ebml_size(data, element, value):
    """`data` with the 2-byte unsigned EBML element `element` (an ID byte) set to `value`."""
    data = bytearray(data)
    at = data.index(bytes([element, 0x82]))
    data[at + 2:at + 4] = value.to_bytes(2, "big")
    return bytes(data)


def test_a_container_claiming_huge_frames_is_probed_not_believed(monkeypatch):
    # A WebM whose Video element claims 32767x16383 frames (3.2 GB of RGB each) for a VP9
    # stream of 300x256: the quick open would have allocated sequences of that size; the full
    # open's probing decode gives the stream's own size, and the frames decode as they are.
    if not video_clips.available("libvpx-vp9"):
        pytest.skip("PyAV has no libvpx-vp9 encoder")
    data = video_clips.encode("libvpx-vp9", 4, gop=2, height=256, width=300, container="webm")
    lying = _ebml_size(_ebml_size(data, 0xB0, 32767), 0xBA, 16383)      # PixelWidth, Height
    with av.open(io.BytesIO(lying), container_options=_clip.QUICK_OPEN) as container:
        context = container.streams.video[0].codec_context
        assert (context.width, context.height) == (32767, 16383)     # what the container says
    _, _, want = opened(np.frombuffer(data, np.uint8), True, monkeypatch)
    index, _, got = opened(np.frombuffer(lying, np.uint8), True, monkeypatch)
    assert (index.height, index.width) == (256, 300)
    np.testing.assert_array_equal(got, want)


def test_frames_beyond_the_pixel_limit_are_refused(monkeypatch):
    if not video_clips.available("mpeg4"):
        pytest.skip("PyAV has no mpeg4 encoder")
    monkeypatch.setenv("DALI_MAX_IMAGE_PIXELS", str(64 * 47))
    data = np.frombuffer(video_clips.encode("mpeg4", 2, container="avi"), np.uint8)
    with pytest.raises(_clip.VideoError, match="the video's frames are 64x48, more than 3008 "
                                               "pixels .*DALI_MAX_IMAGE_PIXELS"):
        _clip.Clip(av, data)
