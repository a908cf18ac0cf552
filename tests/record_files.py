"""Writers of record files for the reader tests: TFRecord files of tf.train.Example protos
(encoded by hand: the protobuf wire format of Example / Features / Feature) with their framing
(length, masked crc32c) and index files, and MXNet RecordIO .rec/.idx pairs."""

from __future__ import annotations

import struct

import numpy as np

_CRC_TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC_TABLE.append(_c)


def crc32c(data: bytes) -> int:
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(no, wire, payload):
    key = varint(no << 3 | wire)
    if wire == 2:
        return key + varint(len(payload)) + payload
    return key + payload


def feature(value, packed=True):
    """A Feature message: bytes/str (or a list of them), floats or ints (lists or arrays)."""
    if isinstance(value, (bytes, str)):
        value = [value]
    value = list(value)
    if value and isinstance(value[0], (bytes, str)):
        body = b"".join(_field(1, 2, v.encode() if isinstance(v, str) else v) for v in value)
        return _field(1, 2, body)
    if value and isinstance(value[0], (float, np.floating)):
        if packed:
            body = _field(1, 2, np.asarray(value, "<f4").tobytes())
        else:
            body = b"".join(_field(1, 5, struct.pack("<f", v)) for v in value)
        return _field(2, 2, body)
    if packed:
        body = _field(1, 2, b"".join(varint(int(v)) for v in value))
    else:
        body = b"".join(_field(1, 0, varint(int(v))) for v in value)
    return _field(3, 2, body)


def example(features: dict, packed=True) -> bytes:
    """An Example message of {name: value} (see `feature`)."""
    entries = b"".join(
        _field(1, 2, _field(1, 2, k.encode()) + _field(2, 2, feature(v, packed)))
        for k, v in features.items())
    return _field(1, 2, entries)


def tfrecord(records) -> bytes:
    out = bytearray()
    for r in records:
        n = struct.pack("<Q", len(r))
        out += n + struct.pack("<I", masked_crc(n)) + r + struct.pack("<I", masked_crc(r))
    return bytes(out)


def write_tfrecord(path, records, index_path=None):
    data = tfrecord(records)
    with open(path, "wb") as f:
        f.write(data)
    if index_path is not None:
        lines, pos = [], 0
        for r in records:
            lines.append(f"{pos} {len(r) + 16}\n")
            pos += len(r) + 16
        with open(index_path, "w") as f:
            f.write("".join(lines))


RECORDIO_MAGIC = 0xCED7230A


def recordio(records):
    """(.rec bytes, [offsets]) of `records` (bytes), each one record (cflag 0), padded to 4."""
    out, offsets = bytearray(), []
    for r in records:
        offsets.append(len(out))
        out += struct.pack("<II", RECORDIO_MAGIC, len(r)) + r + b"\0" * (-len(r) % 4)
    return bytes(out), offsets


def mx_record(label, data, flag=0, image_id=(0, 0)):
    """An MXNet IRHeader (flag, label, id, id2) followed by extra labels and `data`."""
    if np.ndim(label) == 0:
        head = struct.pack("<IfQQ", 0, float(label), *image_id)
        return head + data
    label = np.asarray(label, "<f4")
    head = struct.pack("<IfQQ", len(label), 0.0, *image_id)
    return head + label.tobytes() + data
