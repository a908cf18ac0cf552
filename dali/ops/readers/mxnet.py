"""fn.readers.mxnet: images and labels of MXNet RecordIO files (.rec with its .idx).

The index lines are "key<TAB>offset" (MXNet's `im2rec` writes them); as DALI, there is one
index, its offsets address the files of `path` one after the other, and the records are taken
in the order of their offsets, each ending where the next begins (or at the end of its file).
Index, reading and order: `_records`, `_loader`.

A RecordIO record is the magic 0xCED7230A, a uint32 whose upper 3 bits are a continuation flag
(0: whole, 1: first part, 2: middle, 3: last) and lower 29 bits the length, the data, padded to
4 bytes; a record split in parts (MXNet splits where the data contains the magic) is joined
with the magic put back between the parts.  The data starts with MXNet's IRHeader (uint32
flag, float32 label, uint64 id, uint64 id2); a flag above 0 is the number of float32 labels
that follow it.  Outputs: the rest of the data (uint8, 1-D: the encoded image) and the labels
(float32, (1,) or (flag,)).
"""

from __future__ import annotations

import struct

import numpy as np

from dali import _operator, _registry
from dali._ext import records
from dali._ext.tensor_storage import BatchStorage
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.readers import _common, _records

MAGIC = 0xCED7230A
_MAGIC_BYTES = struct.pack("<I", MAGIC)
_HEADER = struct.Struct("<IfQQ")


class RecordError(ValueError):
    """A record that cannot be parsed; the message says why."""


def record_data(record):
    """The data of one RecordIO record (bytes-like, the record's bytes), parts joined."""
    parts, pos, end = [], 0, len(record)
    while True:
        if pos + 8 > end:
            raise RecordError("truncated record header" if not parts else
                              "a split record ends without its last part")
        magic, lrec = struct.unpack_from("<II", record, pos)
        if magic != MAGIC:
            raise RecordError(f"bad magic number {magic:#x} at byte {pos}")
        flag, length = lrec >> 29, lrec & ((1 << 29) - 1)
        if (flag == 0 or flag == 1) and parts:
            raise RecordError("a record starts inside a split one")
        if flag in (2, 3) and not parts:
            raise RecordError("a continuation part without a first part")
        if flag > 3 or pos + 8 + length > end:
            raise RecordError(f"a part of {length} bytes runs past the record's end")
        parts.append(record[pos + 8:pos + 8 + length])
        pos += 8 + length + (-length % 4)
        if flag in (0, 3):
            break
    if len(parts) == 1:
        return parts[0]
    return _MAGIC_BYTES.join(bytes(p) for p in parts)


def split_record(data):
    """(labels float32 array, image bytes) of a record's data."""
    if len(data) < _HEADER.size:
        raise RecordError(f"{len(data)} bytes of data, less than the {_HEADER.size}-byte header")
    flag, label, _, _ = _HEADER.unpack_from(data, 0)
    if flag == 0:
        return np.array([label], np.float32), data[_HEADER.size:]
    end = _HEADER.size + 4 * flag
    if end > len(data):
        raise RecordError(f"the header announces {flag} labels, more than the record holds")
    return np.frombuffer(data[_HEADER.size:end], "<f4").astype(np.float32), data[end:]


@_registry.register
class MXNet(_records.RecordReader):
    schema = Schema(
        "readers.mxnet", inputs=0, outputs=2, devices=("cpu",), random=True,
        class_name="MXNet",
        doc="Reads images and labels from MXNet RecordIO files (.rec with their .idx index).\n\n"
            "Outputs: the encoded image (uint8, 1-D) and its labels (float32, (1,) or the "
            "number the record's header gives). The sample order, sharding, shuffling buffer "
            "and padding are real DALI's.",
        args=[
            Arg("path", T._STRING_VEC, REQUIRED, doc="The RecordIO (.rec) files."),
            Arg("index_path", T._STRING_VEC, REQUIRED,
                doc="The index file (.idx: lines `key<TAB>offset`; one, whose offsets run "
                    "over the files of `path` one after the other)."),
            *_common.shuffle_after_epoch_args("files"),
            *_common.loader_args(),
            _common.on_error_arg(),
        ])

    def setup(self):
        if len(self.args["index_path"]) != 1:
            raise RuntimeError("readers.mxnet: RecordIOReader supports only a single index file "
                               f"(got {len(self.args['index_path'])})")
        super().setup()

    def index(self):
        paths, (index,) = self.args["path"], self.args["index_path"]
        ends = np.cumsum(_records.file_sizes(paths, self.spec.display_name))
        table = _records.index_pairs(index, "readers.mxnet", "key<TAB>offset")
        starts = np.sort(table[:, 1])
        file_ids = np.searchsorted(ends, starts, side="right")
        bad = np.flatnonzero((starts < 0) | (file_ids >= len(paths)))
        if len(bad):
            raise RuntimeError(f"readers.mxnet: {index}: the record at {starts[bad[0]]} is "
                               f"past the end of the data ({ends[-1]} bytes)")
        stops = np.minimum(np.append(starts[1:], ends[-1]), ends[file_ids])
        local = starts - np.append(0, ends)[file_ids]
        return file_ids, local, stops - starts

    def infer(self, ws):
        entries, outputs = self.next_batch(ws)
        return _operator.Plan([_operator.OutputDesc(None, np.uint8, "", ndim=1),
                               _operator.OutputDesc(None, np.float32, "", ndim=1)],
                              entries=entries, contents=outputs)

    def read(self, entries):
        """([images, labels], None) of the records `entries`, or (None, (index, message)).
        A batch of records of one part is copied out in one call (`records.recordio_outputs`);
        in the others, records of one part are located in C (`records.recordio_spans`), the
        rest parsed here."""
        raw, error = self.read_records(entries)
        if error is not None:
            return None, error
        outputs = records.recordio_outputs(raw)
        if outputs is not None:
            return outputs, None
        spans = records.recordio_spans(raw)
        whole = spans[:, 0] >= 0
        parsed = {}
        for i in np.flatnonzero(~whole).tolist():
            try:
                parsed[i] = split_record(record_data(raw.samples()[i]))
            except RecordError as e:
                return None, (i, f"the record {self.entry_name(entries[i])} is corrupt: {e}")
        starts, stops, label_at, counts = spans.T
        image_sizes = np.where(whole, stops - starts, 0)
        label_sizes = np.where(whole, np.maximum(counts, 1), 0)
        for i, (label, image) in parsed.items():
            image_sizes[i], label_sizes[i] = len(image), len(label)
        images = BatchStorage.allocate(np.uint8, image_sizes.reshape(-1, 1), ndim=1)
        labels = BatchStorage.allocate(np.float32, label_sizes.reshape(-1, 1), ndim=1)
        for i, (record, image, label, (s, e, at, k)) in enumerate(zip(
                raw.samples(), images.samples(), labels.samples(), spans.tolist(),
                strict=True)):
            if s < 0:
                label[...], image[...] = parsed[i][0], np.frombuffer(parsed[i][1], np.uint8)
                continue
            image[...] = record[s:e]
            label.view(np.uint8)[...] = record[at:at + 4 * max(k, 1)]
        return [images, labels], None
