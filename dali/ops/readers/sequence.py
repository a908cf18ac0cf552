"""fn.readers.sequence: sequences of decoded frames from folders of frame images.

Each immediate subdirectory of `file_root` is a stream; its frames are the files with an image
extension (any case), in byte-wise order of their paths (DALI globs `file_root/*/*` and sorts).
A stream of N frames gives the sequences starting at frames 0, step, 2*step, ... that fit:
`sequence_length` frames `stride` apart.  Each sample is the sequence's frames decoded to
`image_type` by the image decoders' machinery (`decoders._decode`), stacked as (F, H, W, C)
uint8, layout FHWC, decoded straight into the output; its frames must share one shape (an
error naming the first odd frame's file, found from the headers, or after decoding where only
decoding tells the channels: ANY_DATA of non-JPEG frames).  The sequences are held as one
array of frame indices into the list of frame paths.  With `on_error="skip"` a sequence with a
frame that cannot be read or decoded, or of another shape than the sequence's first frame, is
skipped: the reader decodes each batch's frames once more on its own thread to find those
(`_decode.check_decoding`, which gives the decoded shapes; `_odd_frame`).  Order, sharding,
shuffling and padding: `_loader`.  Real DALI deprecates this reader.
"""

from __future__ import annotations

import glob
import os

import numpy as np

from dali import _operator, _registry
from dali._ext import files
from dali._ext.tensor_storage import BatchStorage
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali._types import DALIImageType as Image
from dali.ops.decoders import _decode
from dali.ops.readers import _common

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".pnm", ".ppm", ".pgm",
                    ".pbm", ".jp2", ".webp")
_TYPES = (Image.RGB, Image.BGR, Image.GRAY, Image.ANY_DATA)


def gather_streams(root):
    """[(stream directory, [frame paths])] of `root`, as DALI's glob-and-sort finds them."""
    found = sorted(os.fsencode(p) for p in glob.glob(glob.escape(root) + "/*/*")
                   if p.lower().endswith(IMAGE_EXTENSIONS) and os.path.isfile(p))
    streams = {}
    for path in found:
        streams.setdefault(os.path.dirname(path), []).append(path)
    return list(streams.values())


def sequences(streams, length, step, stride):
    """(frame paths, (S, length) int64 array of frame indices) of every sequence that fits."""
    paths, rows = [], []
    for frames in streams:
        base = len(paths)
        paths += frames
        starts = np.arange(0, len(frames), step, dtype=np.int64)
        starts = starts[starts + (length - 1) * stride < len(frames)]
        rows.append(base + starts[:, None] + stride * np.arange(length, dtype=np.int64))
    table = np.concatenate(rows) if rows else np.empty((0, length), np.int64)
    return paths, table


@_registry.register
class Sequence(_common.Reader):
    schema = Schema(
        "readers.sequence", inputs=0, outputs=1, devices=("cpu",), random=True,
        doc="Reads sequences of frames from a directory of streams (one subdirectory of frame "
            "images per stream): `sequence_length` frames `stride` apart, a new sequence "
            "every `step` frames, decoded to `image_type`, as FHWC uint8. The sample order, "
            "sharding, shuffling buffer and padding are real DALI's. Deprecated in DALI.",
        args=[
            Arg("file_root", T.STRING, REQUIRED,
                doc="Directory whose subdirectories are the streams."),
            Arg("sequence_length", T.INT32, REQUIRED, doc="Frames per sequence."),
            Arg("step", T.INT32, 1, doc="Distance between the first frames of consecutive "
                                        "sequences."),
            Arg("stride", T.INT32, 1, doc="Distance between consecutive frames of a sequence."),
            Arg("image_type", T.IMAGE_TYPE, Image.RGB,
                doc="Color space of the output frames (RGB, BGR, GRAY, YCbCr or ANY_DATA)."),
            *_common.loader_args(),
            _common.on_error_arg(),
        ])

    def setup(self):
        a = self.args
        for name in ("sequence_length", "step", "stride"):
            if a[name] < 1:
                raise RuntimeError(f"{name} must be positive, got {a[name]}")
        if a["image_type"] not in _TYPES:
            raise RuntimeError("Format not supported. Only RGB, BGR, GRAY or ANY_DATA are "
                               "supported on this operator")
        super().setup()

    def list_entries(self):
        a = self.args
        self._paths, self._table = sequences(gather_streams(a["file_root"]),
                                             a["sequence_length"], a["step"], a["stride"])
        self._sizes = np.full(len(self._paths), -1, np.int64)    # of each frame read, or -1
        return list(range(len(self._table)))

    def infer(self, ws):
        ids, data = self.next_batch(ws)               # files read ahead on the reader's thread
        frames = self._table[np.asarray(ids, np.int64)].reshape(-1)
        paths = [self._paths[f] for f in frames.tolist()]
        encoded = [frame for sequence in data for frame in sequence]
        length = self.args["sequence_length"]
        try:
            batch = _decode.read_headers(encoded, self.args["image_type"])
        except _decode.SampleHeaderError as e:
            raise ws.sample_error(e.index // length, f"cannot decode "
                                  f"{os.fsdecode(paths[e.index])}: {e}", RuntimeError) from None
        shapes = _decode.output_shapes(batch)
        if shapes is None:         # channels known after decoding (ANY_DATA of non-JPEG)
            return _operator.Plan([_operator.OutputDesc(None, np.uint8, "FHWC", ndim=4)],
                                  batch=batch, paths=paths)
        self._check_shapes(ws, shapes, paths)
        out_shapes = np.concatenate([np.full((len(ids), 1), length, np.int64),
                                     shapes[::length]], axis=1)
        return _operator.Plan([_operator.OutputDesc(out_shapes, np.uint8, "FHWC")],
                              batch=batch, paths=paths)

    def _check_shapes(self, ws, shapes, paths):
        """Raise the error of the first sequence of the batch whose frames (of `paths`) do not
        all have their first frame's shape ((n, 3) `shapes`)."""
        length = self.args["sequence_length"]
        odd = _odd_frame(shapes, length)
        if odd is not None:
            raise ws.sample_error(odd[0] // length, _odd_message(paths, *odd), RuntimeError)

    def run_cpu(self, ws, plan):
        windows = _decode.whole_images(plan.batch)
        n = len(plan.paths) // self.args["sequence_length"]
        if ws.outputs[0] is None:
            frames = _decode.decode(ws, plan.batch, windows, None, np.uint8)
            self._check_shapes(ws, np.array([f.shape for f in frames], np.int64), plan.paths)
            ws.outputs[0] = [np.stack(frames[k:k + len(frames) // n])
                             for k in range(0, len(frames), len(frames) // n)]
        else:
            views = [frame for sample in ws.outputs[0].samples() for frame in sample]
            _decode.decode(ws, plan.batch, windows, BatchStorage.from_samples(views), np.uint8)
        ws.out_source_info = [""] * n        # as in DALI

    def entry_name(self, entry):
        return os.fsdecode(self._paths[self._table[entry, 0]])

    def read(self, entries):
        """([the encoded frames of each sequence], None), or (None, (index, message)) for the
        first sequence with a frame that cannot be read (or decoded, when skipping: `_checked`)
        (on the reader's thread).  Frames
        read before are read assuming their last size (one open and read call each, no
        fstat; `files.read_into` says when a file's size changed, and the batch is then read
        the general way, which finds the sizes)."""
        length = self.args["sequence_length"]
        frames = self._table[np.asarray(entries, np.int64)].reshape(-1)
        paths = [self._paths[f] for f in frames.tolist()]
        known = self._sizes[frames]
        if known.min() >= 0:
            storage = BatchStorage.allocate(np.uint8, known.reshape(-1, 1), ndim=1)
            samples = storage.samples()
            if files.read_into(paths, samples) is None:
                return self._checked(paths, samples)
        opened = files.open_files(paths)
        if opened.failure is not None:
            i, err = opened.failure
            return None, (i // length, f"Failed to read file: {os.fsdecode(paths[i])}: "
                                       f"{os.strerror(err)}")
        storage = BatchStorage.allocate(np.uint8, opened.sizes.reshape(-1, 1), ndim=1)
        samples = storage.samples()
        failure = opened.read_into(samples)
        if failure is not None:
            i = failure[0]
            return None, (i // length, f"Failed to read file: {os.fsdecode(paths[i])}")
        self._sizes[frames] = opened.sizes
        return self._checked(paths, samples)

    def _checked(self, paths, samples):
        """`read`'s result of the frames `samples` (of `paths`) read: with `on_error="skip"`
        (None, (index, message)) for the first sequence with a frame that cannot be
        decoded, else for the first with a frame decoded to another shape than its first
        frame (`_odd_frame`)."""
        length = self.args["sequence_length"]
        if self._skip:
            bad, shapes = _decode.check_decoding(self.spec, samples, self.args["image_type"])
            if bad:
                i = min(bad)
                return None, (i // length, f"cannot decode {os.fsdecode(paths[i])}: {bad[i]}")
            odd = _odd_frame(shapes, length)
            if odd is not None:
                return None, (odd[0] // length, _odd_message(paths, *odd))
        return [samples[k:k + length] for k in range(0, len(samples), length)], None

    # the read result: each sequence's encoded frames
    def first_output(self, data):
        return [sequence[0] for sequence in data]

    def subset(self, data, idx):
        return [data[i] for i in idx]

    def combine(self, parts):
        return [sequence for part in parts for sequence in part]


def _odd_frame(shapes, length):
    """(index, its shape, the shape of its sequence's first frame) of the first frame whose
    shape ((n, 3) `shapes` of sequences of `length` frames) differs from its sequence's first
    frame's, or None."""
    per_sequence = shapes.reshape(-1, length, 3)
    odd = (per_sequence != per_sequence[:, :1]).any(axis=2).reshape(-1)
    if not odd.any():
        return None
    i = int(np.argmax(odd))
    return i, tuple(shapes[i].tolist()), tuple(shapes[i - i % length].tolist())


def _odd_message(paths, i, shape, first):
    return (f"the frames of a sequence must have one shape: {os.fsdecode(paths[i])} is {shape}, "
            f"the first frame {first}")
