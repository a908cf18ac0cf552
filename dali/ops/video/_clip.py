"""One encoded video opened through PyAV (FFmpeg): its frame index and keyframe seeking.

Opening a clip demuxes its first video stream once, without decoding: every packet's
presentation timestamp (pts) and keyframe flag, and (for a clip in memory) the packets
themselves.  Frame `i` is the packet with the i-th smallest pts (presentation order, as DALI
numbers frames).  Decoding a set of frames splits it into runs: a run feeds the decoder from
the last keyframe whose pts is not after its first frame's (the kept packets, or a seek in a
file), and the next wanted frame starts a new run only when its keyframe comes after the packet
of the frame wanted last, with packets to skip in between (so nearby frames never cost a seek,
far ones never cost decoding the gap).  A stream whose packets lack timestamps is numbered in
decoding order and decoded from the start.

Frames are converted to RGB by libswscale with DALI's flags (bilinear, full horizontal chroma
interpolation, accurate rounding): the pixels equal DALI's CPU decoder.  PyAV releases the GIL
while FFmpeg demuxes, decodes and converts, so clips decode in parallel on the pipeline's pool.
libswscale keeps its default of its own threads: converting on the pool's thread alone
(threads=1) costs less CPU (a quarter less on 8x8 clips) but doubled the wall time of a
batch on a busy 2-core machine (less of the work overlapped).
`av` is imported when the first clip is opened: only video users need the "video" extra.

VP8 and VP9 clips in plain WebM/Matroska take the C path instead (`_native`: no container, the
blocks indexed and decoded from C by the same libavcodec and libswscale, frames and errors
bit for bit PyAV's); where it declines or fails, the clip goes through PyAV as described above.
"""

from __future__ import annotations

import dataclasses
import fractions
import io
import os
import threading

import numpy as np

from dali.ops.decoders import _decode
from dali.ops.video import _native

SWS_FLAGS = 0x2 | 0x2000 | 0x40000   # SWS_BILINEAR | SWS_FULL_CHR_H_INT | SWS_ACCURATE_RND


_THREAD = threading.local()        # each thread's reformatter (which keeps its SwsContext) and
                                   # whether its last clip took the quick open

QUICK_OPEN = {"codec_whitelist": "none"}
"""Container options that keep avformat_find_stream_info from decoding (no decoder may open;
PyAV's decoding contexts, made after it, are not bound by the list)."""

MATROSKA = b"\x1a\x45\xdf\xa3"
"""The first bytes of Matroska and WebM (the EBML header's ID): the quick open of a clip in
memory that starts with them names the demuxer instead of probing every format."""

TRUSTED_FRAME_BYTES = 64 << 20
TRUSTED_RATIO = 1024
"""A quick open believes the container's frame size only up to TRUSTED_FRAME_BYTES of RGB a
frame, or TRUSTED_RATIO times the file: a larger one may be a container's lie (the output is
allocated from it), and the full open's probing decode gives the stream's own."""

NO_REORDER = frozenset({"vp8", "vp9"})
"""Codecs whose streams the quick open reads fully: frames are not reordered (each packet's
pts is the container's) and every keyframe's header has the frame size and pixel format, so
the frame the full open's probing decodes teaches nothing the index or the decoding uses."""


def _to_rgb(av, frame):
    """`frame` as an (height, width, 3) uint8 RGB array."""
    reformatter = getattr(_THREAD, "reformatter", None)
    if reformatter is None:
        reformatter = _THREAD.reformatter = av.video.reformatter.VideoReformatter()
    rgb = reformatter.reformat(frame, format="rgb24", interpolation=SWS_FLAGS)
    height, width = rgb.height, rgb.width
    plane = rgb.planes[0]                    # rows of line_size bytes, the pixels first
    return np.frombuffer(plane, np.uint8).reshape(height, -1)[:, :3 * width].reshape(
        height, width, 3)


class VideoError(RuntimeError):
    """A clip that cannot be opened or decoded."""


def av_module(display_name):
    """The `av` package, or an ImportError naming the operator and the extra to install."""
    try:
        import av
    except ImportError:
        raise ImportError(f"{display_name} decodes video with PyAV, which is not installed: "
                          'pip install "dali[video]"') from None
    return av


@dataclasses.dataclass(frozen=True)
class Index:
    """What a demux pass learns of a stream: its frame size and, in decoding (feeding)
    order, each packet's pts and keyframe flag (`ordered` False: the stream has no
    timestamps, `pts` counts the packets) and the timestamp a seek to it takes (its dts,
    which the index of containers such as AVI is keyed by; else its pts)."""

    height: int
    width: int
    time_base: fractions.Fraction
    pts: np.ndarray
    keys: np.ndarray
    ordered: bool
    seek_to: np.ndarray

    @property
    def count(self):
        return len(self.pts)

    def frame_pts(self):
        """The pts of each frame, in presentation (frame) order."""
        return np.sort(self.pts, kind="stable")


def _open(av, source):
    """The container of `source`, opened quickly (`QUICK_OPEN`, `MATROSKA`) where the
    thread's last clip was of a `NO_REORDER` codec and this one is too, else as PyAV opens it:
    probing decodes the first frame (its size and pixel format; for codecs that reorder
    frames, the delay their timestamps are guessed with)."""
    def file():
        return source if isinstance(source, str) else io.BytesIO(source)

    if getattr(_THREAD, "quick_open", True):
        known = not isinstance(source, str) and bytes(source[:4]) == MATROSKA
        try:
            container = av.open(file(), format="matroska" if known else None,
                                container_options=QUICK_OPEN)
        except (av.FFmpegError, OSError):
            pass                              # the full open raises the error
        else:
            context = container.streams.video[0].codec_context if _reads_fully(
                container) else None
            size = os.path.getsize(source) if isinstance(source, str) else len(source)
            if context is not None and _plausible(context.height, context.width, size):
                return container
            container.close()
    try:
        container = av.open(file())
    except (av.FFmpegError, OSError) as e:
        raise VideoError(f"cannot open the video: {e}") from None
    _THREAD.quick_open = _reads_fully(container)
    return container


def _plausible(height, width, size):
    """Whether the frame size a quickly opened container (or the C path's index) states for a
    clip of `size` bytes may be believed (see `TRUSTED_FRAME_BYTES`)."""
    return 3 * width * height <= max(TRUSTED_FRAME_BYTES, TRUSTED_RATIO * size)


def _checked(index):
    """`index`, or a VideoError where its frames are larger than images may be."""
    limit = _decode.max_pixels()
    if index.height * index.width > limit:
        raise VideoError(f"the video's frames are {index.width}x{index.height}, more than "
                         f"{limit} pixels (set the environment variable "
                         f"{_decode.MAX_PIXELS_VAR} to allow larger frames)")
    return index


def _reads_fully(container):
    """Whether `container` (opened quickly or not) has a first video stream of a
    `NO_REORDER` codec whose frame size the container gives."""
    videos = container.streams.video
    if not videos:
        return False
    context = videos[0].codec_context
    return (context is not None and context.name in NO_REORDER and context.width > 0
            and context.height > 0)


class Clip:
    """The first video stream of `source` (encoded bytes, a 1-D uint8 array, or a path),
    indexed by a demux pass unless its `index` is given (a file opened again).

    Attributes
    ----------
    index : Index
    count : int
        Frames in the stream.
    height, width : int
    pts : int64 array
        Presentation timestamp of each frame, in `index.time_base` units (frame order).
    """

    def __init__(self, av, source, index=None, native=True):
        self._av = av
        self._source = source
        self._given = index is not None
        found = _native.blocks(av, source) if native else None
        self._blocks = found if found is not None and _plausible(
            found.height, found.width, found.data.size) and (
            index is None or _native.indexes(found, index)) else None
        if self._blocks is not None:         # the C path: no container
            self._container = None
            self.index = index if index is not None else _checked(Index(
                found.height, found.width, found.time_base, found.pts, found.keys, True,
                found.pts))
            self._use(self.index)
            return
        in_memory = not isinstance(source, str)
        self._container = _open(av, source)
        videos = self._container.streams.video
        if not videos:
            self.close()
            raise VideoError("no video stream found")
        self._stream = stream = videos[0]
        stream.codec_context.thread_count = 1     # clips decode in parallel on the pool
        self._fed = False
        self._packets = [] if in_memory and index is None else None
        self.index = index if index is not None else self._demux(stream)
        self._use(self.index)

    def _demux(self, stream):
        pts, dts, keys = [], [], []
        try:
            for packet in self._container.demux(stream):
                if packet.size == 0:
                    continue
                pts.append(packet.pts)
                dts.append(packet.dts if packet.dts is not None else packet.pts)
                keys.append(packet.is_keyframe)
                if self._packets is not None:
                    self._packets.append(packet)
        except self._av.FFmpegError as e:
            self.close()
            raise VideoError(f"cannot read the video's packets: {e}") from None
        context = stream.codec_context
        ordered = None not in pts
        seek_to = np.asarray(dts if None not in dts else pts if ordered else [0] * len(pts),
                             np.int64)
        index = Index(context.height, context.width, stream.time_base,
                      np.asarray(pts if ordered else range(len(pts)), np.int64),
                      np.asarray(keys, bool), ordered, seek_to)
        if not pts or index.height <= 0 or index.width <= 0:
            self.close()
            raise VideoError("the video stream has no frames")
        try:
            return _checked(index)
        except VideoError:
            self.close()
            raise

    def _use(self, index):
        self.height, self.width = index.height, index.width
        self.count = index.count
        self._ordered = index.ordered
        if not self._ordered:
            self.pts = np.arange(self.count, dtype=np.int64)
            self._fed_of = self.pts
            self._key_fed = np.zeros(1, np.int64)
            return
        fed = index.pts
        self._fed_of = np.argsort(fed, kind="stable")         # frame -> its packet
        self.pts = fed[self._fed_of]
        self._frame_of_pts = {p: i for i, p in enumerate(self.pts.tolist())}
        key_fed = np.flatnonzero(index.keys)
        if not len(key_fed) or key_fed[0] != 0:
            key_fed = np.concatenate([[0], key_fed]).astype(np.int64)
        self._key_fed = key_fed
        self._key_pts = np.maximum.accumulate(fed[key_fed])

    def close(self):
        if self._container is not None:
            self._container.close()

    def through_pyav(self):
        """This clip opened again as PyAV opens it (as it would have been without the C
        path)."""
        return Clip(self._av, self._source, self.index if self._given else None, native=False)

    def _starts(self, frames):
        """The packets to start feeding at to decode `frames` (indices): their keyframes."""
        if not self._ordered:
            return np.zeros(len(frames), np.int64)
        k = np.searchsorted(self._key_pts, self.pts[frames], side="right") - 1
        return self._key_fed[np.maximum(k, 0)]

    def separate(self, i, j):
        """Whether frame j (after frame i) decodes from a keyframe after frame i's packet:
        decoding them apart repeats no work."""
        return self._ordered and self._starts([j])[0] > self._fed_of[i]

    def runs(self, wanted):
        """[(first packet, frames)] of the sorted frames `wanted`, decoded a run at a time."""
        runs = []
        last = -2                            # the packet of the frame before
        for i, start, fed in zip(wanted, self._starts(wanted).tolist(),
                                 self._fed_of[wanted].tolist(), strict=True):
            if start <= last + 1:
                runs[-1][1].append(i)
            else:
                runs.append((start, [i]))
            last = fed
        return runs

    def decode(self, wanted, emit):
        """Decode the frames `wanted` (sorted, unique, in range) and call emit(i, rgb) for each,
        rgb an (height, width, 3) uint8 array valid during the call."""
        for start, run in self.runs(wanted):
            missing = self._decode_run(run, start, emit)
            if missing and start > 0:        # a keyframe that is none: from the start
                missing = self._decode_run(missing, 0, emit)
            if missing:
                raise VideoError(f"frame {missing[0]} of {self.count} could not be decoded")

    def _packets_from(self, start):
        """The packets from the `start`-th on (or from the keyframe a seek finds), then None
        (which drains the decoder)."""
        if self._packets is not None:
            yield from self._packets[start:]
        else:
            self._container.seek(int(self.index.seek_to[start]), stream=self._stream,
                                 backward=True)
            for packet in self._container.demux(self._stream):
                if packet.size:
                    yield packet
        yield None

    def _decode_run(self, run, start, emit):
        """Decode `run` feeding packets from `start`; the frames of `run` not found (empty:
        all were)."""
        av = self._av
        left = set(run)
        last = run[-1]
        context = self._stream.codec_context
        try:
            if self._fed:
                context.flush_buffers()
            self._fed = True
            position = -1
            for packet in self._packets_from(start):
                for frame in context.decode(packet):
                    position += 1
                    i = self._frame_of_pts.get(frame.pts) if self._ordered else position
                    if i is None or i not in left:
                        if i is not None and i > last:
                            return sorted(left)
                        continue
                    if (frame.height, frame.width) != (self.height, self.width):
                        raise VideoError(f"frame {i} is {frame.width}x{frame.height}, the "
                                         f"stream {self.width}x{self.height}")
                    emit(i, _to_rgb(av, frame))
                    left.discard(i)
                    if not left:
                        return []
        except av.FFmpegError as e:
            raise VideoError(f"cannot decode the video: {e}") from None
        return sorted(left)


def decode_into(clip, picks, out, fill):
    """Decode `clip`'s frames `picks` (-1: a `fill` frame) into `out` (F, H, W, 3)."""
    decode_sequences(clip, [picks], [out], fill)


def undecodable(av, samples):
    """{index: reason} of the encoded clips (uint8 arrays) that cannot be opened or decoded
    whole, each decoded on the calling thread into scratch memory (for on_error="skip")."""
    bad = {}
    for i, sample in enumerate(samples):
        try:
            clip = Clip(av, np.ascontiguousarray(sample).reshape(-1))
        except VideoError as e:
            bad[i] = str(e)
            continue
        try:
            decode_into(clip, np.arange(clip.count, dtype=np.int64),
                        np.empty((clip.count, clip.height, clip.width, 3), np.uint8),
                        np.zeros(3, np.uint8))
        except VideoError as e:
            bad[i] = str(e)
        finally:
            clip.close()
    return bad


def decode_sequences(clip, picks, outs, fill):
    """Decode `clip`'s frames `picks[s]` (-1: a `fill` frame) into `outs[s]` (F, H, W, 3) for
    every sequence s, each distinct frame once, in one pass over the clip."""
    for out, frames in zip(outs, picks, strict=True):
        out[frames < 0] = fill
    if clip._blocks is not None:
        places = _native.places(clip._blocks, outs)
        if places is not None and _native.decode_clips(
                None, [clip._blocks], [np.concatenate(picks)], [places], SWS_FLAGS)[0]:
            return
        clip = clip.through_pyav()
        try:
            decode_sequences(clip, picks, outs, fill)
        finally:
            clip.close()
        return
    places = {}
    for out, frames in zip(outs, picks, strict=True):
        for k, i in enumerate(frames.tolist()):
            if i >= 0:
                places.setdefault(i, []).append(out[k])

    def emit(i, rgb):
        for place in places[i]:
            place[...] = rgb

    if places:
        clip.decode(sorted(places), emit)


def decode_batch(pool, clips, picks, storage, outs, fill):
    """Decode `clips[i]`'s frames `picks[i]` (-1: a `fill` frame) into `outs[i]` (F, H, W, 3;
    the samples of the output batch `storage`) for the clips that take the C path, in one call
    on `pool`; whether each clip was decoded (the others are left to `decode_into`)."""
    done = np.zeros(len(clips), bool)
    native = [i for i, clip in enumerate(clips) if clip._blocks is not None]
    found = _native.batch_places(storage, outs) if native else None
    if found is None:
        return done
    places, bounds = found
    _fill(picks, outs, fill, native)
    done[native] = _native.decode_clips(
        pool, [clips[i]._blocks for i in native], [picks[i] for i in native],
        [places[bounds[i]:bounds[i + 1]] for i in native], SWS_FLAGS)
    return done


def decode_parts(pool, clip, picks, storage, outs, fill, cuts):
    """Decode `clip`'s frames `picks[s]` (-1: a `fill` frame) into `outs[s]` (the samples of
    the output batch `storage`) through the C path, the sequences cut before each of `cuts`
    into parts decoded in parallel on `pool`; False (nothing written) where the clip does not
    take it, VideoError where a part fails as through PyAV."""
    found = _native.batch_places(storage, outs) if clip._blocks is not None else None
    if found is None:
        return False
    places, bounds = found
    frames = np.concatenate(picks)
    if len(frames) and frames.min() < 0:
        _fill(picks, outs, fill, range(len(picks)))
    edges = [0, *cuts, len(picks)]
    parts = list(zip(edges[:-1], edges[1:], strict=True))
    done = _native.decode_clips(
        pool, [clip._blocks] * len(parts), [frames[bounds[a]:bounds[b]] for a, b in parts],
        [places[bounds[a]:bounds[b]] for a, b in parts], SWS_FLAGS)
    for (a, b), ok in zip(parts, done.tolist(), strict=True):
        if not ok:
            decode_sequences(clip, picks[a:b], outs[a:b], fill)
    return True


def decode_groups(pool, clips, picks, outs, fill):
    """Decode `clips[g]`'s frames `picks[g][s]` (-1: a `fill` frame) into `outs[g][s]` (its
    sequences) for the clips that take the C path, in one call on `pool`; whether each clip was
    decoded (the others are left to `decode_sequences`)."""
    done = np.zeros(len(clips), bool)
    native, places = [], []
    for g, clip in enumerate(clips):
        found = _native.places(clip._blocks, outs[g]) if clip._blocks is not None else None
        if found is not None:
            native.append(g)
            places.append(found)
    if native:
        for g in native:
            _fill(picks[g], outs[g], fill, range(len(picks[g])))
        done[native] = _native.decode_clips(
            pool, [clips[g]._blocks for g in native], [np.concatenate(picks[g]) for g in native],
            places, SWS_FLAGS)
    return done


def _fill(picks, outs, fill, samples):
    """The frames of `samples` picked as -1 set to `fill`."""
    for i in samples:
        if len(picks[i]) and picks[i].min() < 0:
            outs[i][picks[i] < 0] = fill
