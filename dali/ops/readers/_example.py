"""TFRecord records and the tf.train.Example protobuf, parsed without TensorFlow or protobuf.

A TFRecord record is `length` (uint64 LE), a masked crc32c of the length (4 bytes), `length`
bytes of data and a masked crc32c of the data (4 bytes).  As in DALI, the CRCs are not checked;
the length must match the record's size in the index.

`dali._ext.records.example_spans` checks the framing and walks the Example of each record of a
batch in C, finding the span of each wanted feature's value list; this module decodes the
values of such a list.  Only these parts of the protobuf wire format matter:

    Example  { Features features = 1; }
    Features { map<string, Feature> feature = 1; }     // entries: { key = 1; value = 2; }
    Feature  { oneof { BytesList bytes_list = 1; FloatList float_list = 2;
                       Int64List int64_list = 3; } }
    BytesList { repeated bytes value = 1; }
    FloatList { repeated float value = 1; }            // packed or not
    Int64List { repeated int64 value = 1; }            // packed or not (varints)

Unknown fields are skipped (wire types 0, 1, 2, 5); groups, truncated messages and varints
longer than 10 bytes are errors (`ProtoError` here).
"""

from __future__ import annotations

import numpy as np

BYTES, FLOATS, INT64S = 1, 2, 3
_U64 = (1 << 64) - 1
KIND_NAMES = {BYTES: "bytes", FLOATS: "float", INT64S: "int64"}


class ProtoError(ValueError):
    """A record or message that cannot be parsed; the message says why."""


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
