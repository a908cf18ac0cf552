"""The protobuf wire codec: round trips, DALI's encodings, and malformed input rejected."""

import struct

import pytest

from dali._pipeline import protobuf as pb

INNER = pb.Message("test.Inner", [(1, "name", "string", "required"),
                                  (2, "values", "float", "repeated")])
OUTER = pb.Message("test.Outer")
OUTER.define([
    (1, "count", "int64", "optional", -1),
    (2, "flag", "bool", "optional"),
    (3, "inner", INNER, "repeated"),
    (4, "ints", "int64", "repeated"),
    (5, "blob", "bytes", "optional"),
    (6, "child", OUTER, "optional"),
])


def test_round_trip_with_defaults():
    value = {"count": -5, "flag": True, "inner": [{"name": "a", "values": [1.5, -2.0]}],
             "ints": [0, 1, -1, 2 ** 62], "blob": b"\x00\xff", "child": {"count": 3}}
    back = pb.decode(OUTER, pb.encode(OUTER, value))
    assert back["count"] == -5 and back["flag"] is True and back["blob"] == b"\x00\xff"
    assert back["inner"] == [{"name": "a", "values": [1.5, -2.0]}]
    assert back["ints"] == [0, 1, -1, 2 ** 62]
    assert back["child"]["count"] == 3 and back["child"]["inner"] == []
    empty = pb.decode(OUTER, b"")
    assert empty == {"count": -1, "flag": False, "inner": [], "ints": [], "blob": b"",
                     "child": None}


def test_known_encodings():
    # field 1 varint -1: ten bytes of two's complement; field 2 true; as protoc writes them
    assert pb.encode(OUTER, {"count": -1}) == b"\x08" + b"\xff" * 9 + b"\x01"
    assert pb.encode(OUTER, {"flag": True, "ints": [1, 300]}) == b"\x10\x01\x20\x01\x20\xac\x02"
    assert pb.encode(INNER, {"name": "ab", "values": [1.0]}) == \
        b"\x0a\x02ab\x15" + struct.pack("<f", 1.0)


def test_packed_repeated_and_unknown_fields_are_read():
    packed = b"\x22\x03\x01\xac\x02"                     # ints [1, 300], packed
    unknown = b"\x78\x05" + b"\x82\x01\x02zz" + b"\x8d\x01\x00\x00\x00\x00"  # fields 15, 16, 17
    assert pb.decode(OUTER, packed + unknown)["ints"] == [1, 300]
    floats = b"\x0a\x01x\x12\x08" + struct.pack("<2f", 1.0, 2.0)
    assert pb.decode(INNER, floats)["values"] == [1.0, 2.0]


@pytest.mark.parametrize("data, match", [
    (b"\x08", "test.Outer: truncated varint"),
    (b"\x08" + b"\xff" * 11, "varint longer than 10 bytes"),
    (b"\x1a\x05\x0a\x01", "past the end"),
    (b"\x1a\x00", "test.Inner.name is missing"),
    (b"\x0b", "unsupported wire type 3"),
    (b"\x00\x01", "field number 0"),
    (b"\x0a\x01x", "wire type 2 for a int64"),
    (b"\x1d\x00\x00\x00\x00", "wire type 5 for a message"),
    (b"\x2d\x00\x00", "field 5 runs past the end of the message"),
    (b"\x1a\x03\x0a\x01\xff", "not UTF-8"),
    (b"\x0a\x02ab\x12\x03abc", "packed floats of 3 bytes"),
])
def test_malformed_input_is_a_decode_error(data, match):
    message = INNER if data.startswith(b"\x0a\x02ab") else OUTER
    with pytest.raises(pb.DecodeError, match=match):
        pb.decode(message, data)


def test_nesting_is_bounded():
    deep = b""
    for _ in range(pb.MAX_DEPTH + 2):
        size = len(deep)
        length = bytearray()
        pb._varint(size, length)
        deep = b"\x32" + bytes(length) + deep
    with pytest.raises(pb.DecodeError, match="nested deeper than"):
        pb.decode(OUTER, deep)


def test_required_fields_are_required_when_writing_too():
    with pytest.raises(ValueError, match="test.Inner.name is required"):
        pb.encode(INNER, {"values": [1.0]})
    with pytest.raises(TypeError, match="expected bytes"):
        pb.decode(INNER, "text")
