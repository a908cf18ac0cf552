"""fn.experimental.inputs.video: one encoded video at a time, fed with `Pipeline.feed_input`,
returned as consecutive sequences of decoded frames (FHWC uint8, RGB).

`feed` opens and indexes each fed video (`_clip.Clip`: one demux pass) and queues it.  Each
iteration takes up to `max_batch_size` sequences of `sequence_length` frames from the video at
the front (so the batch size of an iteration is what is left of it: a batch never spans two
videos); the last sequence of a video is shorter, or padded with black frames
(`last_sequence_policy`).  When a video is used up the next one queued is taken; running with
nothing queued is DALI's error.  A batch is decoded in one pass, or cut into consecutive runs of
sequences decoded in parallel on the pool (each with its own decoder, seeking in the same
bytes; through the C path, `_native`, in one call) where a keyframe lets a run start without
decoding frames of the one before.
"""

from __future__ import annotations

import collections

import numpy as np

from dali import _operator, _registry, _roles, tensors
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.video import _clip

_BLACK = np.zeros(3, np.uint8)


@_registry.register
class Video(_operator.Operator, _roles.Source):
    schema = Schema(
        "experimental.inputs.video", inputs=0, outputs=1, devices=("cpu", "mixed"),
        doc="Streams and decodes a video fed with `Pipeline.feed_input` (one encoded video, "
            "uint8 bytes, per call; any container and codec FFmpeg reads, through PyAV): each "
            "run returns the next `max_batch_size` sequences of `sequence_length` frames, "
            "FHWC uint8 RGB, never mixing two videos (the last batch of a video may be "
            "smaller); the fed videos queue up.",
        args=[
            Arg("sequence_length", T.INT32, REQUIRED, doc="Frames in each sequence."),
            Arg("last_sequence_policy", T.STRING, "partial",
                doc="The last sequence of a video, when its frames do not divide evenly: "
                    "'partial' (shorter) or 'pad' (completed with black frames)."),
            Arg("blocking", T.BOOL, False, implemented=False,
                doc="Wait for data to be fed instead of raising an error (not implemented: a "
                    "run with nothing fed raises, as with the default)."),
            Arg("no_copy", T.BOOL, False,
                doc="Use the fed buffer without copying it.",
                ignored="the encoded video is copied once when it is indexed (PyAV reads "
                        "from its own buffer), so the fed buffer may be reused at once"),
            Arg("affine", T.BOOL, True, doc="Pin the mixed backend's threads to CPU cores.",
                ignored="the mixed backend decodes on the CPU (the pipeline's thread "
                        "pool, not pinned) and uploads the frames"),
        ])

    def setup(self):
        a = self.args
        if a["sequence_length"] < 1:
            raise RuntimeError(f"sequence_length must be positive, got {a['sequence_length']}")
        if a["last_sequence_policy"] not in ("partial", "pad"):
            raise RuntimeError(f"Invalid last_sequence_policy: {a['last_sequence_policy']!r} "
                               "(expected 'partial' or 'pad')")
        self.av = _clip.av_module(self.spec.display_name)
        self._videos = collections.deque()   # Clips fed and not used up
        self._position = 0                   # first frame of the next sequence of videos[0]

    # -- feeding ------------------------------------------------------------------------------
    def feed(self, data, layout=None, output=None):
        if isinstance(data, tensors.TensorListCPU):
            samples = list(tensors.storage_of(data).samples())
        elif isinstance(data, (list, tuple)):
            samples = [np.asarray(s) for s in data]
        else:
            samples = list(np.asarray(data))
        if len(samples) != 1:
            raise RuntimeError(f"{self.spec.display_name}: feed one encoded video at a time "
                               f"(a batch of one sample), got {len(samples)} samples")
        video = samples[0]
        if video.dtype != np.uint8:
            raise RuntimeError(f"{self.spec.display_name}: the video must be uint8 bytes, got "
                               f"{video.dtype.name} data")
        data = np.ascontiguousarray(video).reshape(-1)
        try:
            self._videos.append((_clip.Clip(self.av, data), data))
        except _clip.VideoError as e:
            raise RuntimeError(f"{self.spec.display_name}: {e}") from None

    def fed_batch_size(self):
        if not self._videos:
            return None
        left = self._videos[0][0].count - self._position
        return min(self.spec.max_batch_size, -(-left // self.args["sequence_length"]))

    def drop_fed(self):
        for clip, _ in self._videos:
            clip.close()
        self._videos.clear()
        self._position = 0

    # -- running ------------------------------------------------------------------------------
    def infer(self, ws):
        if not self._videos:
            raise RuntimeError("No data was provided to the InputOperator. Make sure to feed "
                               "it properly.")
        clip, data = self._videos[0]
        length = self.args["sequence_length"]
        pad = self.args["last_sequence_policy"] == "pad"
        grid = (self._position + np.arange(ws.batch_size * length, dtype=np.int64)).reshape(
            ws.batch_size, length)
        frames = list(np.where(grid < clip.count, grid, -1) if pad else grid)
        if not pad:
            for k in np.flatnonzero(grid[:, -1] >= clip.count).tolist():
                frames[k] = grid[k][grid[k] < clip.count]
        self._position += length * ws.batch_size
        if self._position >= clip.count:
            self._videos.popleft()
            self._position = 0
        shapes = [(len(f), clip.height, clip.width, 3) for f in frames]
        return _operator.Plan([_operator.OutputDesc(shapes, np.uint8, "FHWC")], clip=clip,
                              data=data, frames=frames)

    def run_cpu(self, ws, plan):
        clip, frames, outs = plan.clip, plan.frames, ws.output_samples(0)
        threads = ws.thread_pool.num_threads if ws.thread_pool is not None else 1
        bounds = _runs(clip, frames, threads)
        try:
            if _clip.decode_parts(ws.thread_pool, clip, frames, ws.outputs[0], outs, _BLACK,
                                  bounds[1:-1]):
                return
        except _clip.VideoError as e:
            raise self.error(str(e), RuntimeError) from None

        def decode(r):
            lo, hi = bounds[r], bounds[r + 1]
            own = clip if r == 0 else _clip.Clip(self.av, plan.data, clip.index)
            try:
                _clip.decode_sequences(own, frames[lo:hi], outs[lo:hi], _BLACK)
            except _clip.VideoError as e:
                return str(e)
            finally:
                if own is not clip:
                    own.close()
            return None

        try:
            failures = ([decode(0)] if len(bounds) == 2 else
                        ws.thread_pool.map(decode, len(bounds) - 1))
        finally:
            if all(clip is not c for c, _ in self._videos):
                clip.close()
        for failure in failures:
            if failure is not None:
                raise self.error(failure, RuntimeError)


def _runs(clip, frames, threads):
    """Bounds [0, ..., len(frames)] of up to `threads` runs of consecutive sequences, cut
    only before a sequence whose first frame decodes from a keyframe after the frame before."""
    n = len(frames)
    bounds = [0]
    for k in range(1, threads):
        cut = k * n // threads
        while cut < n and not (len(frames[cut]) and len(frames[cut - 1]) and
                               clip.separate(int(frames[cut - 1][-1]), int(frames[cut][0]))):
            cut += 1
        if bounds[-1] < cut < n:
            bounds.append(cut)
    return bounds + [n]
