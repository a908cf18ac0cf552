"""The C path of video decoding: VP8 and VP9 clips in WebM/Matroska read and decoded without
PyAV's per-clip and per-frame Python objects (no container, no Packet or VideoFrame objects, no
codec context opened a clip), by the kernel `dali._ext.kernels.video_decode`.

The kernel calls the libavcodec, libavutil and libswscale PyAV has loaded (PyAV's own copies,
found in its `av.libs` folder, else the only copies mapped into the process), resolved at run
time, so the pixels are those PyAV's path gives (the same decoder, libswscale with the same
context options and frame properties); it is used only with the major versions it was checked
with (`MAJORS`).  A clip takes it where its bytes are in the plain form the kernel reads
(`video_decode.index_webm`); anything else, or any failure while decoding, goes through PyAV
(`_clip`), which gives the frames or raises as it always did.
"""

from __future__ import annotations

import fractions
import functools
import os

import numpy as np

from dali._ext.kernels import video_decode

MAJORS = {"libavcodec": 62, "libavutil": 60, "libswscale": 9}
"""The major versions of FFmpeg's libraries the C path was checked with (FFmpeg 8)."""

MAX_FILE_BYTES = 64 << 20
"""Files up to this size are read into memory for the C path; larger ones go through PyAV,
which reads only what it decodes."""


@functools.cache
def available(av):
    """Whether the C path can run: PyAV's FFmpeg is of the `MAJORS` and its libraries' functions
    were found."""
    versions = av.library_versions
    if any(versions.get(name, (None,))[0] != major for name, major in MAJORS.items()):
        return False
    paths = _mapped(os.path.join(os.path.dirname(av.__file__), os.pardir, "av.libs"))
    return paths is not None and video_decode.load(*paths)


def _mapped(own):
    """The files of `MAJORS`' libraries mapped into this process, those in the folder `own`
    where there are any; None where a library has none or several."""
    found = {name: set() for name in MAJORS}
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split(maxsplit=5)
                path = fields[5].strip() if len(fields) == 6 else ""
                base = os.path.basename(path)
                for name in MAJORS:
                    if base.startswith((name + "-", name + ".so")):
                        found[name].add(path)
    except OSError:
        return None
    own = os.path.realpath(own)
    paths = []
    for name in MAJORS:
        theirs = {p for p in found[name] if os.path.dirname(os.path.realpath(p)) == own}
        files = theirs or found[name]
        if len(files) != 1:
            return None
        paths.append(files.pop())
    return paths


@functools.cache
def _time_base(scale):
    return fractions.Fraction(scale, 10 ** 9)


class Blocks:
    """A clip's bytes and the blocks of its first video track (`video_decode.index_webm`)."""

    __slots__ = ("data", "codec", "height", "width", "time_base", "table")

    def __init__(self, data, found):
        self.data = data
        self.codec, self.height, self.width, scale, self.table = found
        self.time_base = _time_base(scale)

    @property
    def pts(self):
        return self.table[2]

    @property
    def keys(self):
        return self.table[3].astype(bool)


def indexes(blocks, index):
    """Whether `blocks` are those `index` (a `_clip.Index`) describes (a file indexed earlier
    and not changed since)."""
    return (index.ordered and (index.height, index.width) == (blocks.height, blocks.width)
            and index.time_base == blocks.time_base and np.array_equal(index.pts, blocks.pts)
            and np.array_equal(index.keys, blocks.keys))


def blocks(av, source):
    """The `Blocks` of `source` (a path, encoded bytes or a 1-D uint8 array), or None where the C
    path does not take it."""
    if not available(av):
        return None
    if isinstance(source, str):
        try:
            if os.path.getsize(source) > MAX_FILE_BYTES:
                return None
            with open(source, "rb") as f:
                data = np.frombuffer(f.read(), np.uint8)
        except OSError:
            return None
    else:
        data = np.frombuffer(source, np.uint8) if isinstance(source, bytes) else source
        if data.dtype != np.uint8 or data.ndim != 1 or not data.flags.c_contiguous:
            return None
    found = video_decode.index_webm(data)
    return None if found is None else Blocks(data, found)


def places(blocks, outs):
    """The address of every frame of the sequences `outs` ((F, H, W, 3) uint8 arrays of the
    clip of `blocks`), one after the other; None where one is not C-contiguous uint8."""
    if not all(out.flags.c_contiguous and out.dtype == np.uint8 for out in outs):
        return None
    step = np.uint64(3 * blocks.height * blocks.width)
    return np.concatenate([out.ctypes.data + step * np.arange(len(out), dtype=np.uint64)
                           for out in outs])


def batch_places(storage, samples):
    """The address of every frame of every sample of an FHWC uint8 output batch (its storage
    and `samples`, its views), one after the other, and the index of each sample's first (and
    the total); None for a batch stored per sample or not of uint8."""
    offsets = storage.offsets
    if offsets is None or not len(samples) or storage.dtype != np.uint8:
        return None
    shapes = storage.shapes
    counts = shapes[:, 0]
    bounds = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=bounds[1:])
    within = np.arange(bounds[-1], dtype=np.uint64) - np.repeat(bounds[:-1], counts).astype(
        np.uint64)
    base = np.uint64(samples[0].ctypes.data - int(offsets[0]))
    steps = np.prod(shapes[:, 1:], axis=1).astype(np.uint64)
    return (np.repeat(offsets.astype(np.uint64) + base, counts) + np.repeat(steps, counts) *
            within), bounds


def decode_clips(pool, clips, picks, places, sws_flags):
    """Decode the frames `picks[i]` (-1: none) of the `Blocks` `clips[i]` to the addresses
    `places[i]` (see `places`), on `pool` (None: the caller), each distinct frame of a clip
    once; whether each clip was (where not, the caller decodes it through PyAV)."""
    return video_decode.decode_clips(pool, clips, [np.ascontiguousarray(p, np.int64)
                                                   for p in picks], places, sws_flags)
