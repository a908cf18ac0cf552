"""The video decoding kernel's contract: what index_webm refuses (None: the caller goes through
PyAV) and decode_clip's checks of its arguments."""

import numpy as np
import pytest

from dali._ext.kernels import video_decode


@pytest.mark.parametrize("data", [b"", b"\x1a\x45\xdf\xa3", bytes(64), b"\x1a\x45\xdf\xa3\x80",
                                  b"\x1a\x45\xdf\xa3\x84\x42\x82\x81w" + bytes(8)])
def test_what_is_not_plain_webm_has_no_index(data):
    assert video_decode.index_webm(np.frombuffer(data, np.uint8)) is None


def test_inconsistent_runs_are_refused():
    data = np.zeros(16, np.uint8)
    blocks = np.zeros((4, 1), np.int64)
    one = np.zeros(1, np.int64)
    with pytest.raises(ValueError, match="inconsistent"):      # firsts: runs + 1 entries
        video_decode.decode_clip(data, blocks, "vp9", 8, 8, 0, one, one, one,
                                 np.array([0, 1], np.int64), np.zeros(1, np.uint64))
    with pytest.raises(ValueError, match="inconsistent"):      # a codec it does not decode
        video_decode.decode_clip(data, blocks, "h264", 8, 8, 0, one, np.array([0, 1]), one,
                                 np.array([0, 1], np.int64), np.zeros(1, np.uint64))
