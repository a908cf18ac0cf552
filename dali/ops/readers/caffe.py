"""fn.readers.caffe: (image, label) pairs of Caffe LMDB databases.

Each record's value is a Caffe `Datum` message (parsed by `_protobuf_wire`: channels 1,
height 2, width 3, data 4, label 5, encoded 7).  The image is the `data` bytes as they are
(uint8, 1-D) unless the record says `encoded: false`, when it is raw pixels of shape
(height, width, channels); the label is int32 of shape (1,).  The records of the databases of
`path` are read in path order, each in key order (`_lmdb`); the image's source info is
`<path> at key <key>`.  Order, sharding, shuffling and padding: `_loader` (the shuffle buffer
is filled in stored order, as DALI's LMDB loader does).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.readers import _common, _in_order, _lmdb
from dali.ops.readers import _protobuf_wire as wire


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
class Caffe(_in_order.InOrderReader):
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
        ])

    def setup(self):
        if not self.args["path"]:
            raise RuntimeError("Argument 'path' is required.")
        super().setup()

    def list_entries(self):
        self._db = _lmdb.Databases(self.args["path"])
        if not len(self._db):
            raise RuntimeError(f"No records found in {self.args['path']}.")
        return list(range(len(self._db)))

    def infer(self, ws):
        records = self.next_entries(ws.batch_size)
        values, infos = self._db.read(records)
        images, labels, descs = [], [], []
        want_image, want_label = self.args["image_available"], self.args["label_available"]
        for i, value in enumerate(values):
            try:
                data, shape, label = parse_datum(value)
            except wire.WireError as e:
                raise ws.sample_error(i, f"Error while parsing Caffe file: "
                                         f"{infos[i]} (raw data length: "
                                         f"{len(value)} bytes): {e}.", RuntimeError) from None
            if want_image:
                if data is None:
                    raise ws.sample_error(i, f"{infos[i]} has no image "
                                             f"data", RuntimeError)
                size = data[1] - data[0]
                if shape is not None and int(np.prod(shape)) != size:
                    raise ws.sample_error(i, f"{infos[i]}: {size} bytes "
                                             f"of pixels for a {shape} image", RuntimeError)
                images.append((value, data, shape or (size,)))
            if want_label:
                if label is None:
                    raise ws.sample_error(i, f"{infos[i]} has no label",
                                          RuntimeError)
                labels.append(label)
        if want_image:
            ndims = {len(shape) for _, _, shape in images}
            if len(ndims) > 1:
                raise self.error("the batch mixes encoded images and raw (encoded: false) "
                                 "ones", RuntimeError)
            descs.append(_operator.OutputDesc([s for _, _, s in images], np.uint8, "",
                                              ndim=ndims.pop()))
        if want_label:
            descs.append(_operator.OutputDesc([(1,)] * len(records), np.int32, ""))
        return _operator.Plan(descs, infos=infos, images=images, labels=labels)

    def run_cpu(self, ws, plan):
        k = 0
        if self.args["image_available"]:
            out = ws.outputs[0]
            for sample, (value, (first, end), _) in zip(out.samples(), plan.images,
                                                        strict=True):
                sample.reshape(-1)[...] = np.frombuffer(value, np.uint8, end - first, first)
            k = 1
        if self.args["label_available"]:
            ws.outputs[k].dense()[:, 0] = plan.labels
            ws.set_output_meta(k, ws.sample_ids, [""] * len(plan.infos))   # as in DALI
        ws.out_source_info = plan.infos
