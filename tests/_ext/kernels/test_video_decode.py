"""The video decoding kernel's contract: what index_webm refuses (None: the caller goes through
PyAV) and decode_clips' checks of its arguments."""

import numpy as np
import pytest

from dali._ext.kernels import video_decode


@pytest.mark.parametrize("data", [b"", b"\x1a\x45\xdf\xa3", bytes(64), b"\x1a\x45\xdf\xa3\x80",
                                  b"\x1a\x45\xdf\xa3\x84\x42\x82\x81w" + bytes(8)])
def test_what_is_not_plain_webm_has_no_index(data):
    assert video_decode.index_webm(np.frombuffer(data, np.uint8)) is None


class _Clip:
    def __init__(self, codec="vp9", rows=4):
        self.data = np.zeros(16, np.uint8)
        self.table = np.zeros((rows, 1), np.int64)
        self.codec, self.height, self.width = codec, 8, 8


@pytest.mark.parametrize("clip, places", [(_Clip(), 2), (_Clip(rows=3), 1),
                                          (_Clip(codec="h264"), 1)])
def test_inconsistent_clips_are_refused(clip, places):
    with pytest.raises(ValueError, match="inconsistent"):
        video_decode.decode_clips(None, [clip], [np.zeros(1, np.int64)],
                                  [np.zeros(places, np.uint64)], 0)


def test_frames_past_the_clip_are_left_to_pyav():
    out = np.zeros((1, 8, 8, 3), np.uint8)
    done = video_decode.decode_clips(None, [_Clip()], [np.array([1], np.int64)],
                                     [np.array([out.ctypes.data], np.uint64)], 0)
    assert not done[0] and not out.any()
