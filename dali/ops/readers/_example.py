"""TFRecord records and the tf.train.Example protobuf, parsed without TensorFlow or protobuf.

A TFRecord record is `length` (uint64 LE), a masked crc32c of the length (4 bytes), `length`
bytes of data and a masked crc32c of the data (4 bytes).  As in DALI, the CRCs are not checked;
the length must match the record's size in the index.

The data is an `Example` message; only these parts of the protobuf wire format matter:

    Example  { Features features = 1; }
    Features { map<string, Feature> feature = 1; }     // entries: { key = 1; value = 2; }
    Feature  { oneof { BytesList bytes_list = 1; FloatList float_list = 2;
                       Int64List int64_list = 3; } }
    BytesList { repeated bytes value = 1; }
    FloatList { repeated float value = 1; }            // packed or not
    Int64List { repeated int64 value = 1; }            // packed or not (varints)

Unknown fields are skipped (wire types 0, 1, 2, 5); groups, truncated messages and varints
longer than 10 bytes are a `ProtoError`.
"""

from __future__ import annotations

import struct

import numpy as np

BYTES, FLOATS, INT64S = 1, 2, 3
_U64 = (1 << 64) - 1
KIND_NAMES = {BYTES: "bytes", FLOATS: "float", INT64S: "int64"}


class ProtoError(ValueError):
    """A record or message that cannot be parsed; the message says why."""


def record_data(record):
    """The data of one framed TFRecord record (bytes-like, the whole record)."""
    if len(record) < 16:
        raise ProtoError(f"a TFRecord record of {len(record)} bytes is shorter than its "
                         "framing (16 bytes)")
    (length,) = struct.unpack_from("<Q", record, 0)
    if length + 16 != len(record):
        raise ProtoError(f"the record's length field says {length} bytes of data, its index "
                         f"entry {len(record) - 16}")
    return record[12:12 + length]


def _varint(buf, pos, end):
    result = shift = 0
    while True:
        if pos >= end:
            raise ProtoError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise ProtoError("varint longer than 10 bytes")


def _fields(buf, pos, end):
    """(field number, wire type, value, start, stop) of each field of buf[pos:end]: `value`
    for varints, else the payload spans [start, stop)."""
    while pos < end:
        key, pos = _varint(buf, pos, end)
        no, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos, end)
            yield no, wire, value, pos, pos
            continue
        if wire == 2:
            n, pos = _varint(buf, pos, end)
            stop = pos + n
        elif wire == 1:
            stop = pos + 8
        elif wire == 5:
            stop = pos + 4
        else:
            raise ProtoError(f"unsupported wire type {wire}")
        if stop > end:
            raise ProtoError("truncated message")
        yield no, wire, None, pos, stop
        pos = stop


def parse_example(data, wanted):
    """{name: (kind, payload)} of the features of an Example (bytes) whose names are in
    `wanted` (a set of str): `kind` is BYTES, FLOATS or INT64S, `payload` the bytes of the
    list message."""
    buf = memoryview(data)
    found = {}
    for no, wire, _, start, stop in _fields(buf, 0, len(buf)):
        if no != 1 or wire != 2:
            continue
        for fno, fwire, _, fstart, fstop in _fields(buf, start, stop):
            if fno != 1 or fwire != 2:
                continue
            name = value = None
            for eno, ewire, _, estart, estop in _fields(buf, fstart, fstop):
                if eno == 1 and ewire == 2:
                    try:
                        name = bytes(buf[estart:estop]).decode()
                    except UnicodeDecodeError:
                        raise ProtoError("a feature name is not UTF-8") from None
                elif eno == 2 and ewire == 2:
                    value = (estart, estop)
            if name in wanted:
                found[name] = _feature(buf, *value) if value is not None else (BYTES, b"")
    return found


def _feature(buf, start, stop):
    kind, payload = BYTES, b""                     # an empty Feature: no values
    for no, wire, _, s, e in _fields(buf, start, stop):
        if no in (BYTES, FLOATS, INT64S) and wire == 2:
            kind, payload = no, buf[s:e]
    return kind, payload


def bytes_values(payload):
    """The values of a BytesList message."""
    return [payload[s:e] for no, wire, _, s, e in _fields(payload, 0, len(payload))
            if no == 1 and wire == 2]


def float_values(payload):
    """The values of a FloatList message (packed or not), as float32."""
    parts = []
    for no, wire, _, s, e in _fields(payload, 0, len(payload)):
        if no != 1:
            continue
        if wire == 2:
            if (e - s) % 4:
                raise ProtoError("a packed float list is not a whole number of floats")
            parts.append(np.frombuffer(payload[s:e], "<f4"))
        elif wire == 5:
            parts.append(np.frombuffer(payload[s:e], "<f4"))
        else:
            raise ProtoError(f"a float value of wire type {wire}")
    return np.concatenate(parts).astype(np.float32) if parts else np.zeros(0, np.float32)


def int64_values(payload):
    """The values of an Int64List message (packed or not), as int64."""
    out = []
    for no, wire, value, s, e in _fields(payload, 0, len(payload)):
        if no != 1:
            continue
        if wire == 0:
            out.append(value & _U64)
        elif wire == 2:
            pos = s
            while pos < e:
                v, pos = _varint(payload, pos, e)
                out.append(v & _U64)
        else:
            raise ProtoError(f"an int64 value of wire type {wire}")
    return np.array(out, np.uint64).view(np.int64) if out else np.zeros(0, np.int64)
