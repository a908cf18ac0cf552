"""fn.readers.caffe: (image, label) pairs of Caffe LMDB databases.

Each record's value is a Caffe `Datum` message (channels 1, height 2, width 3, data 4, label 5,
encoded 7).  The image is the `data` bytes as they are (uint8, 1-D) unless the record says
`encoded: false`, when it is raw pixels of shape (height, width, channels); the label is int32
of shape (1,).  A batch is parsed in C without the GIL (`dali._ext.records.caffe_datums`) and
its images copied into the output in one call; a batch the C parser refuses is parsed again by
`parse_datum` (over `_protobuf_wire`), which gives the error.  The records of the databases of
`path` are read in path order, each in key order (`_lmdb`); the image's source info is
`<path> at key <key>`.  Batches are read and parsed ahead (`_common.Reader.submit`).  Order,
sharding, shuffling and padding: `_loader` (the shuffle buffer is filled in stored order, as
DALI's LMDB loader does).
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


def parse_datum(buf):
    """(data (first, end), (height, width, channels) or None when encoded, label or None) of
    a Datum message; None for missing data."""
    dims = {1: 0, 2: 0, 3: 0}
    data = label = None
    encoded = None
    for number, kind, value in wire.fields(buf):
        if number in dims and kind == wire.VARINT:
            dims[number] = wire.as_int32(value)
        elif number == 4 and kind == wire.LENGTH:
            data = value
        elif number == 5 and kind == wire.VARINT:
            label = wire.as_int32(value)
        elif number == 7 and kind == wire.VARINT:
            encoded = bool(value)
    shape = (dims[2], dims[3], dims[1]) if encoded is False else None
    return data, shape, label


@_registry.register
class Caffe(_lmdb.LmdbReader):
    schema = Schema(
        "readers.caffe", inputs=0, devices=("cpu",), random=True,
        outputs=lambda args: int(args.get("image_available", True)) +
        int(args.get("label_available", True)),
        doc="Reads (image, label) pairs from Caffe LMDB databases: the image's bytes (or raw "
            "HWC pixels for records with `encoded: false`) and an int32 label of shape (1,). "
            "The sample order, sharding, shuffling buffer and padding are real DALI's. Needs "
            "the `lmdb` package.",
        args=[
            Arg("path", T._STRING_VEC, None, doc="The Caffe LMDB directories."),
            Arg("image_available", T.BOOL, True,
                doc="The records hold an image (output 0)."),
            Arg("label_available", T.BOOL, True, doc="The records hold a label."),
            *_common.loader_args(),
            _common.on_error_arg(),
        ])

    def read(self, entries):
        """((a storage per output, their source infos), None), or (None, (index, message))
        for the first record that cannot be used (on the reader's thread)."""
        return self._db.read(entries, self._parse)

    def _parse(self, values, infos):
        """`read` of the records `values` (buffers into the database)."""
        storages = self._read_c(values)
        if storages is None:
            return self._read_python(values, infos)
        out_infos = [infos] if self.args["image_available"] else []
        if self.args["label_available"]:
            out_infos.append([""] * len(values))        # as in DALI
        return (storages, out_infos), None

    def _read_c(self, values):
        """The storages of the records `values` parsed in C without the GIL, or None where
        the batch needs `_read_python` (malformed or unusable records: it says why)."""
        table = records.caffe_datums(values)
        if table is None:
            return None
        a, n = self.args, len(values)
        flags = table[:, 0] & ((5 if a["image_available"] else 0) |     # the parts that matter
                               (2 if a["label_available"] else 0))
        kind = int(flags[0])
        if not (flags == kind).all():       # mixed or missing parts: the Python path says so
            return None
        storages = []
        if a["image_available"]:
            sizes = table[:, 2] - table[:, 1]
            if not kind & 1:
                return None
            shapes = table[:, [4, 5, 3]] if kind & 4 else sizes[:, None]
            if kind & 4 and ((shapes < 0).any() or
                             (shapes.astype(np.float64).prod(axis=1) != sizes).any()):
                return None
            out = BatchStorage.allocate(np.uint8, shapes, ndim=shapes.shape[1])
            records.gather_spans(values, table[:, 1], table[:, 2], out)
            storages.append(out)
        if a["label_available"]:
            if not kind & 2:
                return None
            out = BatchStorage.allocate(np.int32, [(1,)] * n, ndim=1)
            out.dense()[:, 0] = table[:, 6]
            storages.append(out)
        return storages

    def _read_python(self, values, infos):
        """`read` of the records `values` parsed in Python (`parse_datum`): the reference,
        and the errors."""
        images, labels = [], []
        want_image, want_label = self.args["image_available"], self.args["label_available"]
        for i, value in enumerate(values):
            try:
                data, shape, label = parse_datum(value)
            except wire.WireError as e:
                return None, (i, f"Error while parsing Caffe file: {infos[i]} (raw data "
                                 f"length: {len(value)} bytes): {e}.")
            if want_image:
                if data is None:
                    return None, (i, f"{infos[i]} has no image data")
                size = data[1] - data[0]
                if shape is not None and int(np.prod(shape)) != size:
                    return None, (i, f"{infos[i]}: {size} bytes of pixels for a {shape} image")
                if images and len(shape or (size,)) != len(images[0][2]):
                    return None, (i, "the batch mixes encoded images and raw (encoded: "
                                     "false) ones")
                images.append((value, data, shape or (size,)))
            if want_label:
                if label is None:
                    return None, (i, f"{infos[i]} has no label")
                labels.append(label)
        storages, out_infos = [], []
        if want_image:
            out = BatchStorage.allocate(np.uint8, [s for _, _, s in images],
                                        ndim=len(images[0][2]) if images else 1)
            for sample, (value, (first, end), _) in zip(out.samples(), images, strict=True):
                sample.reshape(-1)[...] = np.frombuffer(value, np.uint8, end - first, first)
            storages.append(out)
            out_infos.append(infos)
        if want_label:
            out = BatchStorage.allocate(np.int32, [(1,)] * len(values), ndim=1)
            out.dense()[:, 0] = labels
            storages.append(out)
            out_infos.append([""] * len(values))        # as in DALI
        return (storages, out_infos), None
