"""VP8 and VP9 clips in WebM/Matroska decoded by libavcodec from C, without the GIL: the C path
of the video operators (dali/ops/video/_native.py), beside PyAV's.

`load(avcodec, avutil, swscale)` resolves FFmpeg's functions in the libraries at those paths,
which PyAV has already mapped (nothing is linked, no FFmpeg header is needed to build);
`index_webm(data)` reads the blocks of a clip's first video track from its bytes (no
libavformat: the clip's EBML elements are walked in C); `decode_clip(...)` decodes runs of
blocks into RGB frames, written straight to their places in the output, on the calling thread
(a pool thread: one codec context per thread, reused from clip to clip).  The C side is
video_decode.h; anything out of the plain form it handles answers None or -1, and the caller
goes through PyAV.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint64_t
from libcpp.vector cimport vector

cnp.import_array()

CODECS = {8: "vp8", 9: "vp9"}


cdef extern from "video_decode.h" namespace "dali_video" nogil:
    cdef struct Block "dali_video::Block":
        int64_t offset, size, pts
        uint8_t key

    cdef cppclass Track "dali_video::Track":
        int codec
        uint64_t width, height, timecode_scale
        vector[Block] blocks

    bint load_api "dali_video::load"(const char* avcodec, const char* avutil,
                                     const char* swscale)
    bint parse_webm(const uint8_t* data, uint64_t size, Track* track)
    int decode_runs(const uint8_t* data, const int64_t* offsets, const int64_t* sizes,
                    const int64_t* pts, const int64_t* keys, int64_t count, int codec,
                    int width, int height, int sws_flags, const int64_t* starts,
                    const int64_t* firsts, int64_t runs, const int64_t* frames,
                    const int64_t* place_at, uint8_t* const* places)


def load(str avcodec, str avutil, str swscale):
    """Whether FFmpeg's functions were found in the mapped libraries at these paths, of the
    major versions video_decode.h was checked with."""
    return bool(load_api(avcodec.encode(), avutil.encode(), swscale.encode()))


def index_webm(const uint8_t[::1] data):
    """(codec name, height, width, timecode scale, blocks) of the first video track of the
    WebM/Matroska bytes `data`, `blocks` an (4, n) int64 array of the offsets, sizes,
    timestamps and keyframe flags of its n blocks in feeding order; None where the clip is not
    of the plain form video_decode.h reads."""
    cdef Track track
    cdef bint ok = False
    cdef Py_ssize_t i, n
    if data.shape[0]:
        with nogil:
            ok = parse_webm(&data[0], data.shape[0], &track)
    if not ok:
        return None
    n = track.blocks.size()
    blocks = np.empty((4, n), np.int64)
    cdef int64_t[:, ::1] b = blocks
    for i in range(n):
        b[0, i] = track.blocks[i].offset
        b[1, i] = track.blocks[i].size
        b[2, i] = track.blocks[i].pts
        b[3, i] = track.blocks[i].key
    return CODECS[track.codec], track.height, track.width, track.timecode_scale, blocks


def decode_clip(const uint8_t[::1] data, const int64_t[:, ::1] blocks, str codec, int height,
                int width, int sws_flags, const int64_t[::1] starts,
                const int64_t[::1] firsts, const int64_t[::1] frames,
                const int64_t[::1] place_at, const uint64_t[::1] places):
    """Decode the runs of a clip indexed by `index_webm` into RGB frames: run r feeds its
    blocks from starts[r] and takes frames[firsts[r]:firsts[r + 1]] (ascending), frame
    frames[j] written (height x width x 3 bytes) to every address places[place_at[j]:
    place_at[j + 1]].  True when every frame was decoded; False where anything was unusual
    (the caller decodes the clip through PyAV)."""
    cdef Py_ssize_t runs = starts.shape[0], count = frames.shape[0]
    if (blocks.shape[0] != 4 or firsts.shape[0] != runs + 1 or place_at.shape[0] != count + 1
            or not runs or firsts[0] != 0 or firsts[runs] != count or place_at[0] != 0
            or place_at[count] != places.shape[0] or codec not in ("vp8", "vp9")):
        raise ValueError("decode_clip: inconsistent runs, frames or places")
    cdef int codec_id = 9 if codec == "vp9" else 8
    cdef int status
    with nogil:
        status = decode_runs(&data[0], &blocks[0, 0], &blocks[1, 0], &blocks[2, 0],
                             &blocks[3, 0], blocks.shape[1], codec_id, width, height,
                             sws_flags, &starts[0], &firsts[0], runs, &frames[0],
                             &place_at[0], <uint8_t* const*>&places[0])
    return status == 0
