"""Sequences of frames from video files, decoded on the CPU: the implementation of
fn.experimental.readers.video and, on the GPU, of the legacy fn.readers.video (with
device="gpu" the outputs are then uploaded, `dali._gpu.host.run_on_host`).

At build (or the first run, with `lazy_init`) every file is indexed once (`_clip.Clip`: one
demux pass, no decoding): its frames, timestamps and keyframes.  Each file's range of interest
(the whole file, or a `file_list` line's start and end) gives the reader's entries: one per
sequence of `sequence_length` frames `stride` apart, starting every `step` frames; without
padding only the sequences that fit the range (start + sequence_length * stride <= end), with
padding every start in the range, the frames past its end resolved by `pad_mode`; with
`uniform_sample`, one entry per file.  Order, sharding, shuffling and padding of the entries:
`readers._loader` (DALI's, sample for sample).

The reader's own thread opens the files of the batches ahead (the index is reused, nothing is
demuxed twice; a file once for the sequences of a batch it holds, up to a thread's share of
the batch); the pipeline's pool decodes them, one work item per opened file (those taking the
C path, `_native`, in one nogil call, the others one Python task each), seeking to the
keyframe before each sequence (the sequences of a file in one pass, each frame decoded once),
straight into the output (FHWC uint8, RGB).
"""

from __future__ import annotations

import bisect
import os

import numpy as np

from dali import _operator
from dali._ext.thread_pool import ThreadPool
from dali._gpu import host
from dali.ops.readers import _common
from dali.ops.video import _clip, _frames

_SERIAL = ThreadPool(1)                  # for workspaces without a pool
_FRAME_NUM = {"none": None, "false": None, "scalar": "scalar", "true": "scalar",
              "sequence": "sequence"}
_ROUNDING = ("start_down_end_up", "start_up_end_down", "all_up", "all_down")


def frame_num_mode(value):
    mode = _FRAME_NUM.get(str(value).lower(), "?")
    if mode == "?":
        raise RuntimeError(f"Invalid enable_frame_num: {value!r} (expected 'none', 'scalar', "
                           "'sequence', True or False)")
    return mode


def num_outputs(args):
    """The frames, then the label, frame number and timestamp outputs the arguments ask for."""
    labelled = args.get("file_root") or args.get("file_list") or \
        args.get("labels") is not None
    return (1 + bool(labelled) + (frame_num_mode(args.get("enable_frame_num", "none"))
                                  is not None) + bool(args.get("enable_timestamps")))


class SequenceReader(_common.Reader):
    """The reader's listing, sequences and decoding; subclasses give the schema (the arguments
    `setup` reads are experimental.readers.video's)."""

    frame_dtype = np.uint8
    """The type of the frames output (decoded RGB values converted to it)."""

    def setup(self):
        a = self.args
        sources = [bool(a["filenames"]), bool(a["file_root"]), bool(a["file_list"])]
        if sum(sources) != 1:
            raise RuntimeError("Exactly one of `filenames`, `file_root` or `file_list` must be "
                               "given.")
        if a["labels"] is not None and len(a["labels"]) != len(a["filenames"]):
            raise RuntimeError(f"Provided {len(a['labels'])} labels for "
                               f"{len(a['filenames'])} files.")
        for name in ("sequence_length", "stride"):
            if a[name] < 1:
                raise RuntimeError(f"{name} must be positive, got {a[name]}")
        self.step = a["step"] if a["step"] > 0 else a["sequence_length"]
        try:
            self.pad_mode = _frames.pad_mode(a["pad_mode"])
        except ValueError as e:
            raise RuntimeError(str(e)) from None
        fill = np.asarray(a["fill_value"], np.int64).reshape(-1)
        if ((fill < 0) | (fill > 255)).any() or fill.size not in (1, 3):
            raise RuntimeError("fill_value must be one value or one per channel (3), each in "
                               f"[0, 255]; got {fill.tolist()}")
        self.fill = np.broadcast_to(fill.astype(np.uint8), (3,)).copy()
        self.frame_num = frame_num_mode(a["enable_frame_num"])
        if a["file_list_format"] not in ("frames", "timestamps"):
            raise RuntimeError(f"Invalid file_list_format: {a['file_list_format']!r} (expected "
                               "'frames' or 'timestamps')")
        if a["file_list_rounding"] not in _ROUNDING:
            raise RuntimeError(f"Invalid file_list_rounding: {a['file_list_rounding']!r} "
                               f"(expected one of {', '.join(_ROUNDING)})")
        self.labelled = num_outputs(a) > 1 + (self.frame_num is not None) + \
            bool(a["enable_timestamps"])
        self.av = _clip.av_module(self.spec.display_name)
        super().setup()

    # -- listing -----------------------------------------------------------------------------
    def list_entries(self):
        """Index every file; entries are (file, first frame) pairs, first -1 for
        `uniform_sample`."""
        files = self._files()
        self._paths, self._labels, self._indexes, self._ranges = [], [], [], []
        entries = []
        for path, label, start, end in files:
            index = self._index(path)
            roi = self._range(index, start, end)
            if roi is None:
                continue
            f = len(self._paths)
            self._paths.append(path)
            self._labels.append(label)
            self._indexes.append(index)
            self._ranges.append(roi)
            entries += [(f, s) for s in self._starts(*roi)]
        if not self._paths:
            raise RuntimeError("No files were read.")
        return entries

    def _files(self):
        """[(path, label, start, end)] of the data set (start, end: None or the list's)."""
        a = self.args
        if a["filenames"]:
            labels = a["labels"] if a["labels"] is not None else [0] * len(a["filenames"])
            return [(p, int(lbl), None, None)
                    for p, lbl in zip(a["filenames"], labels, strict=True)]
        if a["file_root"]:
            root = a["file_root"]
            try:
                classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
            except OSError as e:
                raise RuntimeError(f"Failed to open {root}: {e.strerror}") from None
            out = []
            for label, d in enumerate(classes):
                with os.scandir(os.path.join(root, d)) as it:
                    names = sorted(e.name for e in it if e.is_file())
                out += [(os.path.join(root, d, n), label, None, None) for n in names]
            return out
        lines, _ = _common.read_file_list(a["file_list"], "")
        out = []
        for n, line in enumerate(lines, 1):
            parts = line.split()
            if not parts:
                continue
            try:
                label = int(parts[1])
                bounds = [float(v) for v in parts[2:4]]
            except (IndexError, ValueError):
                raise RuntimeError(f'Incorrect format of the list file "{a["file_list"]}":{n} '
                                   f"expected `path label [start [end]]`; got: {line}") from None
            start = bounds[0] if bounds else None
            end = bounds[1] if len(bounds) > 1 else (0.0 if bounds else None)
            out.append((parts[0], label, start, end))
        return out

    def _index(self, path):
        try:
            clip = _clip.Clip(self.av, path)
        except _clip.VideoError as e:
            raise RuntimeError(f"{self.spec.display_name}: {path}: {e}") from None
        clip.close()
        return clip.index

    def _range(self, index, start, end):
        """(first, end) frames of the video of `index` in the range of a list line (the whole
        video without one), or None for an empty range."""
        count = index.count
        if start is None:
            return 0, count
        if self.args["file_list_format"] == "frames":
            first, last = int(start), int(end)
            first = first + count if first < 0 else first
            last = min(last + count if last < 0 else last, count)
            first = max(first, 0)
        else:
            times = (index.frame_pts() * float(index.time_base)).tolist()
            if end > times[-1]:
                return None
            rounding = self.args["file_list_rounding"]
            first = (bisect.bisect_left(times, start) if rounding in ("start_up_end_down",
                                                                     "all_up")
                     else max(bisect.bisect_right(times, start) - 1, 0))
            last = bisect.bisect_left(times, end)
            if rounding in ("start_up_end_down", "all_down"):
                last -= 1
        return (first, last) if first < last else None

    def _starts(self, first, end):
        if self.args["uniform_sample"]:
            return [-1]
        starts = np.arange(first, end, self.step, dtype=np.int64)
        if self.pad_mode == "none":
            starts = starts[starts + self.args["sequence_length"] * self.args["stride"] <= end]
        return starts.tolist()

    def frames_of(self, entry):
        """The frame numbers of entry (file, start): -1 for a constant frame."""
        f, start = entry
        first, end = self._ranges[f]
        length = self.args["sequence_length"]
        if start < 0:
            return np.floor(np.linspace(first, end - 1, length) + 0.5).astype(np.int64)
        rel = start - first + self.args["stride"] * np.arange(length, dtype=np.int64)
        rel = _frames.pad(rel, end - first, self.pad_mode)
        return np.where(rel >= 0, rel + first, -1)

    def entry_name(self, entry):
        return self._paths[entry[0]]

    # -- one iteration -----------------------------------------------------------------------
    def read(self, entries):
        """([an opened Clip per entry], None), or (None, (index, message)) for the first file
        that cannot be opened (on the reader's thread).  Entries of the same file share a clip,
        up to a pool thread's share of the batch each (so a batch from one file still decodes
        on every thread)."""
        share = -(-len(entries) // max(self.spec.num_threads, 1))
        opened = {}                  # file -> [its clip, the entries that clip serves]
        clips = []
        for k, (f, _) in enumerate(entries):
            if f not in opened or opened[f][1] == share:
                try:
                    opened[f] = [_clip.Clip(self.av, self._paths[f], self._indexes[f]), 0]
                except _clip.VideoError as e:
                    for clip in clips:
                        clip.close()
                    return None, (k, f"cannot read {self._paths[f]}: {e}")
            opened[f][1] += 1
            clips.append(opened[f][0])
        return clips, None

    def first_output(self, data):
        return data

    def subset(self, data, idx):
        return [data[i] for i in idx]

    def combine(self, parts):
        return [clip for part in parts for clip in part]

    def infer(self, ws):
        entries, clips = self.next_batch(ws)
        frames = [self.frames_of(e) for e in entries]
        descs = [_operator.OutputDesc([(len(fr), c.height, c.width, 3)
                                       for fr, c in zip(frames, clips, strict=True)],
                                      self.frame_dtype, "FHWC")]
        if self.labelled:
            descs.append(_operator.OutputDesc([(1,)] * len(entries), np.int32, ""))
        if self.frame_num is not None:
            descs.append(_operator.OutputDesc(
                [(1,) if self.frame_num == "scalar" else (len(fr),) for fr in frames],
                np.int32, ""))
        if self.args["enable_timestamps"]:
            descs.append(_operator.OutputDesc([(len(fr),) for fr in frames], np.float64, ""))
        return _operator.Plan(descs, entries=entries, clips=clips, frames=frames)

    def run_cpu(self, ws, plan):
        self.decode(ws, plan, ws.output_samples(0))
        self.fill_metadata(ws, plan)

    def decode(self, ws, plan, out):
        """Decode the batch's sequences into `out` (an array per sample, (F, H, W, 3), whose
        type the RGB values are converted to), on the pool, one task a clip: the sequences
        sharing it are decoded in one pass (each frame once); closes the clips."""
        clips, frames, entries = plan.clips, plan.frames, plan.entries
        groups = {}
        for k, clip in enumerate(clips):
            groups.setdefault(id(clip), []).append(k)
        groups = list(groups.values())

        def decode(g):
            samples = groups[g]
            clip = clips[samples[0]]
            try:
                _clip.decode_sequences(clip, [frames[k] for k in samples],
                                       [out[k] for k in samples], self.fill)
            except _clip.VideoError as e:
                return f"cannot decode {self._paths[entries[samples[0]][0]]}: {e}"
            finally:
                clip.close()
            return None

        pool = ws.thread_pool or _SERIAL
        done = _clip.decode_groups(pool, [clips[samples[0]] for samples in groups],
                                   [[frames[k] for k in samples] for samples in groups],
                                   [[out[k] for k in samples] for samples in groups], self.fill)
        groups = [samples for samples, ok in zip(groups, done.tolist(), strict=True) if not ok]
        sizes = np.array([sum(frames[k].size for k in samples) for samples in groups], np.int64)
        failures = pool.map(decode, len(groups), order=np.argsort(-sizes, kind="stable"))
        for samples, failure in zip(groups, failures, strict=True):
            if failure is not None:
                raise ws.sample_error(samples[0], failure, RuntimeError)

    def fill_metadata(self, ws, plan):
        """The outputs after the frames: labels, frame numbers, timestamps; the source info."""
        clips, frames, entries = plan.clips, plan.frames, plan.entries
        o = 1
        if self.labelled:
            ws.outputs[o].dense()[:, 0] = [self._labels[f] for f, _ in entries]
            o += 1
        if self.frame_num is not None:
            for k, sample in enumerate(ws.output_samples(o)):
                sample[...] = frames[k][:1] if self.frame_num == "scalar" else frames[k]
            o += 1
        if self.args["enable_timestamps"]:
            for k, sample in enumerate(ws.output_samples(o)):
                clip = clips[k]
                tb = clip.index.time_base
                sample[...] = np.where(frames[k] >= 0, clip.pts[frames[k]] * (
                    tb.numerator / tb.denominator), -1.0)
        ws.out_source_info = [self._paths[f] for f, _ in entries]

    def run_gpu(self, ws, plan):
        """device="gpu": decoded on the CPU as `run_cpu` does, every output then uploaded."""
        host.run_on_host(self, ws, plan)
