"""VP8 and VP9 clips in WebM/Matroska decoded by libavcodec from C, without the GIL: the C path
of the video operators (dali/ops/video/_native.py), beside PyAV's.

`load(avcodec, avutil, swscale)` resolves FFmpeg's functions in the libraries at those paths,
which PyAV has already mapped (nothing is linked, no FFmpeg header is needed to build);
`index_webm(data)` reads the blocks of a clip's first video track from its bytes (no
libavformat: the clip's EBML elements are walked in C); `decode_clips(pool, ...)` decodes the
frames wanted of a batch of clips into RGB, written straight to their places in the output,
one work item a clip on the pool (one codec context per thread, reused from clip to clip where
that cannot change a frame).  The C side is
video_decode.h; anything out of the plain form it handles answers None or -1, and the caller
goes through PyAV.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint64_t
from libcpp.vector cimport vector

from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

CODECS = {8: "vp8", 9: "vp9"}
_CODEC_IDS = {"vp8": 8, "vp9": 9}
cdef double _NS_PER_PIXEL = 30.0         # the cost estimate the pool gets (decode and convert)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    decode_job((<ClipJob*>ctx) + i)


cdef extern from "video_decode.h" namespace "dali_video" nogil:
    cdef struct Block "dali_video::Block":
        int64_t offset, size, pts
        uint8_t key

    cdef cppclass Track "dali_video::Track":
        int codec
        uint64_t width, height, timecode_scale
        vector[Block] blocks

    ctypedef struct ClipJob "dali_video::ClipJob":
        const uint8_t* data
        const int64_t* blocks
        int64_t count
        int codec, width, height, sws_flags
        const int64_t* frames
        const uint64_t* places
        int64_t n
        int status

    void decode_job(ClipJob* job)
    bint load_api "dali_video::load"(const char* avcodec, const char* avutil,
                                     const char* swscale)
    bint parse_webm(const uint8_t* data, uint64_t size, Track* track)


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


def decode_clips(ThreadPool pool, list clips, list frames, list places, int sws_flags):
    """Decode the frames wanted of every clip: clips[i] (a `_native.Blocks`: the clip's bytes
    and `index_webm` answer) has frame frames[i][k] written (height x width x 3 bytes of RGB) to
    the address places[i][k], for every k where it is not -1; each distinct frame is decoded
    once.  One work item a clip, largest first, on `pool` (None: the caller).  An array of
    booleans: whether clip i was decoded (False: anything was unusual, the caller goes through
    PyAV)."""
    cdef Py_ssize_t n = len(clips), i
    cdef list keep = []
    cdef ClipJob* jobs = <ClipJob*>job_array(n, sizeof(ClipJob), keep)
    cdef const uint8_t[::1] data
    cdef const int64_t[:, ::1] blocks
    cdef const int64_t[::1] wanted
    cdef const uint64_t[::1] where
    sizes = np.empty(n, np.int64)
    cdef int64_t[::1] size_view = sizes
    for i in range(n):
        clip = clips[i]
        data, blocks, wanted, where = clip.data, clip.table, frames[i], places[i]
        if (blocks.shape[0] != 4 or where.shape[0] != wanted.shape[0]
                or clip.codec not in _CODEC_IDS or not data.shape[0]):
            raise ValueError("decode_clips: inconsistent clips, frames or places")
        keep.append((data, blocks, wanted, where))
        jobs[i].data = &data[0]
        jobs[i].blocks = &blocks[0, 0] if blocks.shape[1] else NULL
        jobs[i].count = blocks.shape[1]
        jobs[i].codec = _CODEC_IDS[clip.codec]
        jobs[i].width = clip.width
        jobs[i].height = clip.height
        jobs[i].sws_flags = sws_flags
        jobs[i].frames = &wanted[0] if wanted.shape[0] else NULL
        jobs[i].places = &where[0] if where.shape[0] else NULL
        jobs[i].n = wanted.shape[0]
        size_view[i] = wanted.shape[0] * clip.width * clip.height
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_PIXEL)
    out = np.empty(n, bool)
    for i in range(n):
        out[i] = jobs[i].status == 0
    return out
