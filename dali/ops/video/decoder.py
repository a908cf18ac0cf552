"""fn.decoders.video (and its deprecated name fn.experimental.decoders.video): encoded videos
in memory -> sequences of RGB frames, FHWC uint8.

`infer` opens every sample on the pipeline's pool (`_clip.Clip`: one demux pass, no decoding),
resolves its frame selection (`_frames`), and returns the output shapes; `run_cpu` decodes the
selected frames of each sample straight into the leased output: the clips taking the C path
(`_native`) in one nogil call on the pool, the others one pool task per sample, largest
first; each distinct frame is decoded once (seeking to keyframes) and copied to every place it
is wanted; constant-padded frames are filled with `fill_value`.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.thread_pool import ThreadPool
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _aliases
from dali.ops.readers import _common
from dali.ops.video import _clip, _frames

_SELECTION = ("start_frame", "sequence_length", "stride", "end_frame")
_SERIAL = ThreadPool(1)                  # for workspaces without a pool


@_registry.register
class Video(_operator.Operator):
    schema = Schema(
        "decoders.video", inputs=1, outputs=1, devices=("cpu", "mixed"),
        input_names=["encoded"],
        doc="Decodes videos from in-memory streams (any container and codec FFmpeg reads, "
            "through PyAV; the first video stream) into sequences of RGB frames: uint8, layout "
            "FHWC, one sequence per sample.\n\n"
            "Frame selection: all frames (no selection argument); `frames` (indices in any "
            "order, repeats allowed); or `start_frame` and `stride` with `sequence_length` "
            "frames or those before `end_frame` (else those before the clip's end). Indices "
            "past the clip are resolved by `pad_mode`. Frames are numbered in presentation "
            "order; decoding seeks to the keyframe before each wanted frame.",
        args=[
            Arg("affine", T.BOOL, True, doc="Pin the mixed backend's threads to CPU cores.",
                ignored="the mixed backend decodes on the CPU (the pipeline's thread "
                        "pool, not pinned) and uploads the frames"),
            Arg("build_index", T.BOOL, True,
                doc="Build a frame index (timestamps and keyframes) when a sample is opened.",
                ignored="the index is always built: one demux pass without decoding, which "
                        "counts the frames and lets every selection seek to keyframes"),
            Arg("end_frame", T.INT32, None, tensor=True,
                doc="Last frame to extract (exclusive). Cannot be used with `frames` or "
                    "`sequence_length`."),
            Arg("fill_value", T._INT32_VEC, [0],
                doc="Value(s) of the frames padded with pad_mode='constant', each in [0, 255]: "
                    "one for all channels or one per channel."),
            Arg("frames", T._INT32_VEC, None, tensor=True,
                doc="Indices of the frames to extract, in any order, repeats allowed. Cannot be "
                    "used with `start_frame`, `sequence_length`, `stride`, `end_frame`."),
            Arg("on_error", T.STRING, "raise",
                doc='A clip that cannot be decoded: "raise" (the error, as DALI does) or '
                    "\"skip\" (the decoder's input must be a reader's first output: the reader "
                    "checks each clip it reads by decoding all its frames, on its own thread, "
                    "and replaces the bad ones by the next samples, listed in its "
                    "`reader_meta()[\"skipped\"]`; each clip is decoded twice). Not in DALI "
                    "2.4."),
            Arg("pad_mode", T.STRING, "constant", tensor=True,
                doc="Frames past the clip's end: 'none' (a shorter sequence; an error for "
                    "`frames`), 'constant' (`fill_value`), 'edge' or 'repeat' (the last frame), "
                    "'reflect_1001' or 'symmetric' (mirrored, repeating the last frame), "
                    "'reflect_101' or 'reflect' (mirrored, not repeating it)."),
            Arg("sequence_length", T.INT32, None, tensor=True,
                doc="Number of frames to extract. Cannot be used with `frames` or `end_frame`."),
            Arg("start_frame", T.INT32, None, tensor=True,
                doc="First frame to extract (default 0). Cannot be used with `frames`."),
            Arg("stride", T.INT32, None, tensor=True,
                doc="Distance between extracted frames (default 1). Cannot be used with "
                    "`frames`."),
        ])

    def setup(self):
        given = self.spec.given
        if "frames" in given and any(name in given for name in _SELECTION):
            raise self.error("Cannot specify both `frames` and any of `start_frame`, "
                             "`sequence_length`, `stride`, `end_frame` arguments", RuntimeError)
        if "sequence_length" in given and "end_frame" in given:
            raise self.error("Cannot specify both `sequence_length` and `end_frame` arguments",
                             RuntimeError)
        fill = np.asarray(self.args["fill_value"], np.int64).reshape(-1)
        if ((fill < 0) | (fill > 255)).any():
            raise self.error("fill_value must be in range [0, 255]", RuntimeError)
        if fill.size not in (1, 3):
            raise self.error(f"Fill value size must be 1 or equal to the number of channels. "
                             f"Got {fill.size} with num_channels=3", RuntimeError)
        self.fill = np.broadcast_to(fill.astype(np.uint8), (3,)).copy()
        self.av = _clip.av_module(self.spec.display_name)
        av, name = self.av, self.spec.display_name
        _common.skip_undecodable(self, lambda samples: {
            i: f"{name}: {reason}" for i, reason in _clip.undecodable(av, samples).items()})

    def infer(self, ws):
        storage = ws.input_storage(0)
        if storage.dtype != np.uint8:
            raise self.error(f"the input must be encoded videos stored as uint8 bytes, got "
                             f"{storage.dtype.name} data", RuntimeError)
        samples = [np.ascontiguousarray(s).reshape(-1) for s in storage.samples()]
        pool = ws.thread_pool or _SERIAL
        clips = pool.map(lambda i: self._open(samples[i]), len(samples),
                         order=np.argsort([-s.size for s in samples]).astype(np.int64))
        try:
            picks = [self._select(ws, i, clip) for i, clip in enumerate(clips)]
        except Exception:
            _close(clips)
            raise
        shapes = [(len(p), c.height, c.width, 3) for p, c in zip(picks, clips, strict=True)]
        return _operator.Plan([_operator.OutputDesc(shapes, np.uint8, "FHWC")],
                              clips=clips, picks=picks)

    def _open(self, data):
        try:
            return _clip.Clip(self.av, data)
        except _clip.VideoError as e:
            return str(e)

    def _select(self, ws, i, clip):
        """Sample i's frame indices after padding (-1: a constant frame)."""
        if isinstance(clip, str):
            raise ws.sample_error(i, clip, RuntimeError)
        mode = ws.arg("pad_mode")[i]
        try:
            mode = _frames.pad_mode(mode)
        except ValueError as e:
            raise self.error(str(e), RuntimeError) from None
        count = clip.count
        frames = ws.arg("frames")[i]
        if frames is not None:
            frames = np.asarray(frames, np.int64).reshape(-1)
            outside = frames[(frames < 0) | (frames >= count)]
            if mode == "none" and outside.size:
                raise ws.sample_error(i, (
                    f"Unexpected out-of-bounds frame index {outside[0]} for pad_mode = 'none' "
                    f"and a sample containing a ROI with {count} frames. Range of valid frame "
                    f"indices for this sample is [0, {count}). Change `pad_mode` to other than "
                    "'none' for out-of-bounds sampling."), RuntimeError)
            return _frames.pad(frames, count, mode)
        start, stride, length, end = (ws.arg(name)[i] for name in
                                      ("start_frame", "stride", "sequence_length", "end_frame"))
        start = 0 if start is None else start
        stride = 1 if stride is None else stride
        if start >= count:
            raise ws.sample_error(i, f"Start frame {start} is out of bounds for sample #{i}, "
                                     f"expected range [0, {count})", RuntimeError)
        if stride < 1:
            raise ws.sample_error(i, f"stride must be positive, got {stride} for sample #{i}",
                                  RuntimeError)
        if length is not None and length < 0:
            raise ws.sample_error(i, f"sequence_length must not be negative, got {length} for "
                                     f"sample #{i}", RuntimeError)
        if end is not None and end <= start:
            raise ws.sample_error(i, f"end_frame ({end}) must be greater than start_frame "
                                     f"({start}), for sample #{i}", RuntimeError)
        return _frames.pad(_frames.sequence(count, start, stride, length, end), count, mode)

    def run_cpu(self, ws, plan):
        outputs = ws.output_samples(0)
        clips, picks = plan.clips, plan.picks
        pool = ws.thread_pool or _SERIAL

        def decode(i):
            try:
                _clip.decode_into(clips[i], picks[i], outputs[i], self.fill)
            except _clip.VideoError as e:
                return str(e)
            finally:
                clips[i].close()
            return None

        rest = np.flatnonzero(~_clip.decode_batch(pool, clips, picks, ws.outputs[0], outputs,
                                                  self.fill))
        sizes = np.array([picks[i].size for i in rest], np.int64)
        failures = pool.map(lambda k: decode(rest[k]), len(rest),
                            order=np.argsort(-sizes, kind="stable"))
        for i, failure in zip(rest.tolist(), failures, strict=True):
            if failure is not None:
                raise ws.sample_error(i, f"{failure}", RuntimeError)


def _close(clips):
    for clip in clips:
        if not isinstance(clip, str):
            clip.close()


_aliases.deprecated_alias(
    "experimental.decoders.video", Video,
    "moved out of the experimental phase in DALI", __name__)
