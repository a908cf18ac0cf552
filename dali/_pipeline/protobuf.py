"""The protobuf wire format (proto2), for the few messages dali reads and writes: DALI's
serialized pipelines (`dali_proto.PipelineDef`) and checkpoints.

A message type is a `Message(name, fields)` with fields `(number, name, kind, label)`: `kind`
is "string", "bytes", "bool", "int64", "float" or another Message; `label` is "optional",
"required" or "repeated".  Messages are plain dicts: `decode` fills every field (repeated ones as
lists, absent optional ones with their default), `encode` writes the fields a dict has.  Repeated
scalars are written unpacked, as proto2 does by default, and read packed or unpacked.

Decoding (on `dali._protobuf_wire`'s field walker) never runs code and checks everything:
truncated or malformed input, a wire type that does not fit the field, a missing required
field, strings that are not UTF-8 and nesting deeper than `MAX_DEPTH` raise `DecodeError` (a
ValueError) saying what.  Unknown fields are skipped, as protobuf does.
"""

from __future__ import annotations

import struct

from dali import _protobuf_wire as _wire

MAX_DEPTH = 64

_VARINT, _LEN, _FIXED32 = _wire.VARINT, _wire.LENGTH, _wire.FIXED32
_WIRE = {"string": _LEN, "bytes": _LEN, "bool": _VARINT, "int64": _VARINT, "float": _FIXED32}
_DEFAULT = {"string": "", "bytes": b"", "bool": False, "int64": 0, "float": 0.0}


class DecodeError(ValueError):
    """Input that is not a valid encoding of the expected message."""


class Message:
    """A message type: `fields` are `(number, name, kind, label)` or, with a default,
    `(number, name, kind, label, default)`.  A message that contains itself is made without
    fields, then given them with `define`."""

    def __init__(self, name, fields=()):
        self.name = name
        self.fields = {}
        self.define(fields)

    def define(self, fields):
        """Add `fields`."""
        for f in fields:
            number, fname, kind, label = f[:4]
            default = f[4] if len(f) > 4 else (None if isinstance(kind, Message)
                                               else _DEFAULT[kind])
            self.fields[number] = (number, fname, kind, label, default)

    def __repr__(self):
        return f"<Message {self.name}>"


# -- encoding --------------------------------------------------------------------------------
def _varint(value, out):
    value &= (1 << 64) - 1          # negative int64: ten bytes of two's complement
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def _key(number, wire, out):
    _varint((number << 3) | wire, out)


def _scalar(kind, value, out):
    if kind == "string":
        data = value.encode("utf-8")
        _varint(len(data), out)
        out += data
    elif kind == "bytes":
        _varint(len(value), out)
        out += value
    elif kind == "bool":
        _varint(1 if value else 0, out)
    elif kind == "int64":
        _varint(int(value), out)
    else:
        out += struct.pack("<f", float(value))


def encode(message, value):
    """The wire bytes of dict `value` as a `message`."""
    out = bytearray()
    _encode(message, value, out)
    return bytes(out)


def _encode(message, value, out):
    for number, name, kind, label, _ in sorted(message.fields.values()):
        if name not in value or value[name] is None:
            if label == "required":
                raise ValueError(f"{message.name}.{name} is required")
            continue
        items = value[name] if label == "repeated" else [value[name]]
        for item in items:
            if isinstance(kind, Message):
                _key(number, _LEN, out)
                sub = bytearray()
                _encode(kind, item, sub)
                _varint(len(sub), out)
                out += sub
            else:
                _key(number, _WIRE[kind], out)
                _scalar(kind, item, out)


# -- decoding --------------------------------------------------------------------------------
def decode(message, data):
    """The dict of `message` encoded in `data` (bytes); raises DecodeError."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"expected bytes, got {type(data).__name__}")
    data = bytes(data)
    return _decode(message, data, 0, len(data), 0)


def _signed(value):
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def _decode(message, data, pos, end, depth):
    if depth > MAX_DEPTH:
        raise DecodeError(f"messages nested deeper than {MAX_DEPTH} levels")
    out = {}
    for _, name, _kind, label, default in message.fields.values():
        out[name] = [] if label == "repeated" else default
    seen = set()
    try:
        for number, wire, raw in _wire.fields(data, pos, end):
            spec = message.fields.get(number)
            if spec is None:
                continue                 # unknown field: skipped, as protobuf does
            _, name, kind, label, _ = spec
            values = _field_values(message, spec, wire, raw, data, depth)
            if label == "repeated":
                out[name].extend(values)
            else:
                out[name] = values[-1]   # the last one wins, as protobuf does
            seen.add(number)
    except _wire.WireError as e:
        raise DecodeError(f"{message.name}: {e}") from None
    for number, name, _, label, _ in message.fields.values():
        if label == "required" and number not in seen:
            raise DecodeError(f"{message.name}.{name} is missing")
    return out


def _field_values(message, spec, wire, raw, data, depth):
    number, name, kind, label, _ = spec
    where = f"{message.name}.{name}"
    if isinstance(kind, Message):
        if wire != _LEN:
            raise DecodeError(f"{where}: wire type {wire} for a message")
        return [_decode(kind, data, raw[0], raw[1], depth + 1)]
    expected = _WIRE[kind]
    if wire == _LEN and expected != _LEN:
        if label != "repeated":
            raise DecodeError(f"{where}: wire type {wire} for a {kind}")
        return _packed(kind, data, raw[0], raw[1], where)
    if wire != expected:
        raise DecodeError(f"{where}: wire type {wire} for a {kind}")
    if kind == "string":
        try:
            return [data[raw[0]:raw[1]].decode("utf-8")]
        except UnicodeDecodeError:
            raise DecodeError(f"{where}: the string is not UTF-8") from None
    if kind == "bytes":
        return [data[raw[0]:raw[1]]]
    if kind == "bool":
        return [raw != 0]
    if kind == "int64":
        return [_signed(raw)]
    return [struct.unpack("<f", raw)[0]]


def _packed(kind, data, pos, end, where):
    if kind == "float":
        if (end - pos) % 4:
            raise DecodeError(f"{where}: packed floats of {end - pos} bytes")
        return list(struct.unpack(f"<{(end - pos) // 4}f", data[pos:end]))
    values = []
    while pos < end:
        raw, pos = _wire.varint(data, pos, end)
        values.append(raw != 0 if kind == "bool" else _signed(raw))
    return values
