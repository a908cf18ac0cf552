"""The protobuf wire format, read without a schema or a protobuf dependency: `fields(buf)` walks
a message's fields, `packed` decodes a packed repeated numeric field.  Used by the record
readers for their small messages (Caffe's Datum, Caffe2's TensorProtos) and by
`dali._pipeline.protobuf`, which decodes DALI's pipeline and checkpoint messages by their
schemas on top of it.  Malformed input raises `WireError` (a ValueError)."""

from __future__ import annotations

import numpy as np

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


class WireError(ValueError):
    """The bytes are not a well-formed protobuf message."""


def varint(buf, pos, end):
    """(value, next position) of the varint at `pos`."""
    value = shift = 0
    while True:
        if pos >= end:
            raise WireError("truncated varint")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise WireError("varint longer than 10 bytes")


def fields(buf, start=0, end=None):
    """Yield (field number, wire type, value) of each field of the message `buf[start:end]`:
    the integer of a varint (unsigned 64-bit), the raw bytes object of a fixed32/fixed64, and
    (first, end) offsets into `buf` for a length-delimited field."""
    end = len(buf) if end is None else end
    pos = start
    while pos < end:
        key = buf[pos]                       # one-byte varints (the usual keys) inline
        if key < 0x80:
            pos += 1
        else:
            key, pos = varint(buf, pos, end)
        number, kind = key >> 3, key & 7
        if number == 0:
            raise WireError("field number 0")
        if kind == VARINT or kind == LENGTH:
            if pos < end and buf[pos] < 0x80:
                value = buf[pos]
                pos += 1
            else:
                value, pos = varint(buf, pos, end)
            if kind == LENGTH:
                if pos + value > end:
                    raise WireError(f"field {number} runs past the end of the message")
                value, pos = (pos, pos + value), pos + value
        elif kind in (FIXED32, FIXED64):
            width = 4 if kind == FIXED32 else 8
            if pos + width > end:
                raise WireError(f"field {number} runs past the end of the message")
            value = bytes(buf[pos:pos + width])
            pos += width
        else:
            raise WireError(f"unsupported wire type {kind} (field {number})")
        yield number, kind, value


def as_int32(value):
    """A varint field's value as int32 (protobuf sign-extends negative int32 to 64 bits)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def as_int64(value):
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value & 0x8000000000000000 else value


def packed(buf, span, dtype):
    """The values of a packed repeated field at `span` ((first, end) into `buf`): float32 and
    float64 are fixed-width, int32 and int64 varints."""
    first, end = span
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        if (end - first) % dtype.itemsize:
            raise WireError("packed field size is not a multiple of its element size")
        return np.frombuffer(bytes(buf[first:end]), dtype.newbyteorder("<")).astype(dtype)
    out = []
    pos = first
    convert = as_int32 if dtype == np.int32 else as_int64
    while pos < end:
        value, pos = varint(buf, pos, end)
        out.append(convert(value))
    return np.array(out, dtype)
