"""fn.readers.caffe2: samples of Caffe2 LMDB databases.

Each record's value is a Caffe2 `TensorProtos` message: protos 1 (TensorProto: dims 1,
data_type 2, float_data 3, int32_data 4, byte_data 5, string_data 6, int64_data 10; repeated
numbers packed or not), parsed by `_protobuf_wire`.  The protos are read in DALI's order: the
image (STRING: its first string, 1-D; BYTE: raw pixels of dims (H, W[, C])), the label by
`label_type` (single value, sparse indices made dense with `num_labels`, dense values, or
sparse indices with weights in the next proto), `additional_inputs` protos (float32, int32 or
int64), and the int32 box when one proto is left (with `bbox`).  As in DALI, the additional
protos start one proto later with sparse labels only (not with weighted sparse ones, whose
weights are then read again as the first additional proto).  Records of the databases of
`path` are read in path order, each in key order (`_lmdb`), and parsed ahead on the reader's
thread: in C without the GIL, straight into the outputs (`dali._ext.records.caffe2_records`);
a batch the C parser refuses is parsed again by `_parse`, which gives the error.
"""

from __future__ import annotations

import numpy as np

from dali import _protobuf_wire as wire
from dali import _registry
from dali._ext import records
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.readers import _common, _lmdb

FLOAT, INT32, BYTE, STRING, INT64 = 1, 2, 3, 4, 10
SINGLE, SPARSE, DENSE, WEIGHTED_SPARSE, NO_LABEL = range(5)
_REPEATED = {3: np.float32, 4: np.int32, 10: np.int64}
_DATA_FIELD = {FLOAT: 3, INT32: 4, INT64: 10}


class Proto:
    """One TensorProto: its dims and data_type, and the raw occurrences of its other fields
    (decoded when asked for)."""

    __slots__ = ("buf", "dims", "data_type", "found")

    def __init__(self, buf, span):
        self.buf = buf
        self.data_type = FLOAT
        self.dims = []
        self.found = {}
        for number, kind, value in wire.fields(buf, *span):
            if number == 2 and kind == wire.VARINT:
                self.data_type = value
            elif number == 1 and kind == wire.VARINT:
                self.dims.append(wire.as_int64(value))
            elif number == 1 and kind == wire.LENGTH:
                self.dims += wire.packed(buf, value, np.int64).tolist()
            else:
                self.found.setdefault(number, []).append((kind, value))

    def numbers(self, number):
        """The values of repeated numeric field `number` (3: float, 4: int32, 10: int64),
        packed or not."""
        dtype = _REPEATED[number]
        parts = []
        for kind, value in self.found.get(number, ()):
            if kind == wire.LENGTH:
                parts.append(wire.packed(self.buf, value, dtype))
            elif kind == wire.VARINT and dtype != np.float32:
                convert = wire.as_int32 if dtype == np.int32 else wire.as_int64
                parts.append(np.array([convert(value)], dtype))
            elif kind == wire.FIXED32 and dtype == np.float32:
                parts.append(np.frombuffer(value, "<f4").astype(np.float32))
        if len(parts) == 1:
            return parts[0]
        return np.concatenate(parts) if parts else np.empty(0, dtype)

    def span(self, number, first=False):
        """(first, end) of length-delimited field `number` (its last occurrence, or its
        first with `first`), or None."""
        spans = [v for k, v in self.found.get(number, ()) if k == wire.LENGTH]
        return (spans[0] if first else spans[-1]) if spans else None

    def data(self):
        field = _DATA_FIELD.get(self.data_type)
        if field is None:
            raise ValueError(f"unsupported data type {self.data_type}")
        return self.numbers(field)


def _n_outputs(args):
    return int(args.get("image_available", True)) + int(args.get("label_type", 0) != NO_LABEL) \
        + int(args.get("additional_inputs", 0)) + int(args.get("bbox", False))


@_registry.register
class Caffe2(_lmdb.LmdbReader):
    schema = Schema(
        "readers.caffe2", inputs=0, outputs=_n_outputs, devices=("cpu",), random=True,
        doc="Reads samples of Caffe2 LMDB databases (TensorProtos records): the image, the "
            "label (by `label_type`), `additional_inputs` tensors and the box, each present "
            "as configured. The sample order, sharding, shuffling buffer and padding are real "
            "DALI's. Needs the `lmdb` package.",
        args=[
            Arg("path", T._STRING_VEC, None, doc="The Caffe2 LMDB directories."),
            Arg("image_available", T.BOOL, True, doc="The records hold an image (output 0)."),
            Arg("label_type", T.INT32, 0,
                doc="0: a single label; 1: sparse active label indices (a dense 0/1 vector "
                    "of `num_labels`); 2: a dense label vector; 3: sparse indices with "
                    "weights (a dense float vector of `num_labels`); 4: no label."),
            Arg("num_labels", T.INT32, 1, doc="Number of classes of the sparse label types."),
            Arg("additional_inputs", T.INT32, 0,
                doc="Number of additional tensors per record, after the label."),
            Arg("bbox", T.BOOL, False, doc="The records end with a box (4 int32 values)."),
            *_common.loader_args(),
            _common.on_error_arg(),
        ])

    def setup(self):
        a = self.args
        if not 0 <= a["label_type"] <= NO_LABEL:
            raise RuntimeError(f"Unsupported label type {a['label_type']}")
        if a["additional_inputs"] < 0:
            raise RuntimeError("additional_inputs must not be negative")
        super().setup()

    def read(self, entries):
        """((a storage per output, their source infos), None), or (None, (index, message))
        for the first record that cannot be used (on the reader's thread)."""
        return self._db.read(entries, self._parse_batch)

    def _parse_batch(self, values, infos):
        """`read` of the records `values` (buffers into the database)."""
        a = self.args
        storages = records.caffe2_records(values, a["image_available"], a["label_type"],
                                          a["num_labels"], a["additional_inputs"], a["bbox"],
                                          _n_outputs(a))
        if storages is None:
            return self._read_python(values, infos)
        return (storages, self._infos(infos, len(storages))), None

    def _infos(self, infos, outputs):
        """The source infos of each output: the record's for the image, else none."""
        return [infos if k == 0 and self.args["image_available"] else [""] * len(infos)
                for k in range(outputs)]

    def _read_python(self, values, infos):
        """`read` of the records `values` parsed in Python (`_parse`): the reference, and
        the errors."""
        columns = None
        for i, value in enumerate(values):
            try:
                outs = self._parse(value)
            except (wire.WireError, ValueError, IndexError) as e:
                return None, (i, f"Error while parsing Caffe2 file: {infos[i]} (raw data "
                                 f"length: {len(value)} bytes): {e}")
            if columns is None:
                columns = [[] for _ in outs]
            for col, out in zip(columns, outs, strict=True):
                col.append(out)
        storages = []
        for k, col in enumerate(columns):
            present = [x for x in col if x is not None]
            kinds = {(x.dtype, x.ndim) for x in present}
            if len(kinds) > 1:
                first = next(i for i, x in enumerate(col)
                             if x is not None and (x.dtype, x.ndim) != (present[0].dtype,
                                                                        present[0].ndim))
                return None, (first, f"output {k}: the samples of the batch differ in type "
                                     f"or dimensionality ({sorted(map(str, kinds))})")
            dtype, ndim = kinds.pop() if kinds else (np.dtype(np.int32), 1)
            storages.append(BatchStorage.from_arrays(
                [x if x is not None else np.empty((0,) * ndim, dtype) for x in col]))
        return (storages, self._infos(infos, len(storages))), None

    def _parse(self, value):
        a = self.args
        protos = [Proto(value, span) for number, kind, span in wire.fields(value)
                  if number == 1 and kind == wire.LENGTH]
        outs = []
        c = 0
        if a["image_available"]:
            image = protos[c]
            if image.data_type == STRING:
                first, end = image.span(6, first=True) or (0, 0)
                outs.append(np.frombuffer(value, np.uint8, end - first, first))
            elif image.data_type == BYTE:
                dims = image.dims
                shape = (dims[0], dims[1], dims[2] if len(dims) == 3 else 1)
                first, end = image.span(5) or (0, 0)
                if end - first != int(np.prod(shape)):
                    raise ValueError(f"{end - first} bytes of pixels for a {shape} image")
                outs.append(np.frombuffer(value, np.uint8, end - first, first).reshape(shape))
            else:
                raise ValueError(f"unsupported image data type {image.data_type}")
            c += 1
        label_type = a["label_type"]
        if label_type != NO_LABEL:
            outs.append(self._label(protos, c, label_type))
            c += 1
        start = c + (1 if label_type == SPARSE else 0)      # DALI's (see the module docstring)
        end = start + a["additional_inputs"]
        for proto in protos[start:end]:
            outs.append(proto.data())
        if len(protos[start:end]) < a["additional_inputs"]:
            raise ValueError(f"{a['additional_inputs']} additional tensors expected, the "
                             f"record has {max(0, len(protos) - start)}")
        if a["bbox"]:
            if len(protos) == end + 1:
                box = protos[end]
                values = box.numbers(4)
                if box.data_type != INT32 or values.size != 4:
                    raise ValueError("the box must be 4 int32 values")
                outs.append(values)
            else:
                outs.append(None)
        return outs

    def _label(self, protos, c, label_type):
        proto = protos[c]
        if proto.data_type not in (FLOAT, INT32):
            raise ValueError("Unsupported label data type")
        data = proto.data()
        n = self.args["num_labels"]
        if label_type == SINGLE:
            if data.size != 1:
                raise ValueError(f"a single label expected, the record has {data.size}")
            return data
        if label_type == DENSE:
            return data
        idx = data.astype(np.int64)
        if ((idx < 0) | (idx >= n)).any():
            raise ValueError(f"label index out of range [0, {n})")
        if label_type == SPARSE:
            out = np.zeros(n, data.dtype)
            out[idx] = 1
            return out
        weights = protos[c + 1].numbers(3)
        out = np.zeros(n, np.float32)
        out[idx] = weights[:idx.size]
        return out
