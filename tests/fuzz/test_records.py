"""Fuzzing the record and header parsers of the readers and decoders (.npy headers, TFRecord
framing and Example protobufs, MXNet RecordIO records, the TFRecord index tool): mutated
inputs are parsed in process; each must parse or be refused with the parser's own error,
never fail another way, and what parses must stay within the input."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

from dali._ext import records
from dali.ops import _npy
from dali.ops.readers import mxnet
from dali.tools import tfrecord2idx
from tests.record_files import example, mx_record, recordio, tfrecord


def _mutants(data, n, seed):
    """Bit flips, truncations, 4- and 8-byte fields set to extreme values, repeated spans."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        buf = bytearray(data)
        how = rng.integers(4)
        if how == 0:
            for at in rng.integers(0, len(buf), rng.integers(1, 8)):
                buf[at] ^= 1 << int(rng.integers(8))
        elif how == 1:
            del buf[rng.integers(0, len(buf)):]
        elif how == 2:
            at = int(rng.integers(0, len(buf)))
            width = int(rng.choice([1, 2, 4, 8]))
            buf[at:at + width] = rng.choice([b"\xff" * 8, b"\x00" * 8, b"\x7f\xff\xff\xff" * 2,
                                             b"\x80" * 8])[:width]
        else:
            at, n_ = int(rng.integers(0, len(buf))), int(rng.integers(1, 32))
            buf[at:at] = buf[at:at + n_] * int(rng.integers(1, 4))
        yield bytes(buf)


def _npy_seed(a):
    f = io.BytesIO()
    np.save(f, a)
    return f.getvalue()


@pytest.mark.parametrize("seed", range(3))
def test_npy_headers_parse_or_refuse(seed):
    seed_file = _npy_seed(np.zeros((3, 4, 2), np.float32))
    for data in _mutants(seed_file, 300, seed):
        try:
            start, end = _npy.text_span(data[:_npy.PREFIX])
            dtype, shape, fortran = _npy.parse(data[start:end])
        except _npy.HeaderError:
            continue
        assert start in (10, 12) and end >= start
        assert isinstance(dtype, np.dtype) and all(type(x) is int and x >= 0 for x in shape)
        assert isinstance(fortran, bool)


@pytest.mark.parametrize("seed", range(3))
def test_example_records_parse_or_refuse(seed):
    seed_record = tfrecord([example({"image": b"abcdef" * 5, "label": [3, -1],
                                     "box": [0.5, 0.25], "name": ["x", "yz"]})])
    names = [b"image", b"label", b"box", b"name"]
    for data in _mutants(seed_record, 400, seed):
        raw = [np.frombuffer(data, np.uint8)]
        spans, error = records.example_spans(raw, names)
        if error is not None:
            assert error[0] == 0 and isinstance(error[1], str)
            continue
        for j, (kind, start, stop, first, last) in enumerate(spans[0].tolist()):
            assert 0 <= start <= stop <= len(data) and kind in (0, 1, 2, 3)
            assert kind != 1 or last == -1 or start <= first <= last <= stop
            if kind in (2, 3):
                values, counts, error = records.numbers(raw, spans[:, j], kind)
                if error is None:
                    assert len(values) == counts[0] <= stop - start
                    assert values.dtype == (np.float32 if kind == 2 else np.int64)


@pytest.mark.parametrize("seed", range(3))
def test_recordio_records_parse_or_refuse(seed):
    magic = struct.pack("<I", 0xCED7230A)
    payload = mx_record([1.0, 2.0], b"img" + magic + b"data")
    first, second = payload.split(magic)
    split = (struct.pack("<II", 0xCED7230A, 1 << 29 | len(first)) + first
             + bytes(-len(first) % 4)
             + struct.pack("<II", 0xCED7230A, 3 << 29 | len(second)) + second
             + bytes(-len(second) % 4))
    for seed_record in (recordio([mx_record(2.5, b"image bytes")])[0], split):
        for data in _mutants(seed_record, 200, seed):
            (start, stop, at, count), = records.recordio_spans(
                [np.frombuffer(data, np.uint8)]).tolist()
            assert start == -1 or (0 <= start <= stop <= len(data)
                                   and at + 4 * max(count, 1) <= start)
            try:
                labels, image = mxnet.split_record(mxnet.record_data(data))
            except mxnet.RecordError:
                continue
            assert labels.dtype == np.float32 and len(image) <= len(data)


@pytest.mark.parametrize("seed", range(2))
def test_tfrecord_index_tool_indexes_or_refuses(tmp_path, seed):
    seed_file = tfrecord([example({"a": [i]}) for i in range(4)])
    path = tmp_path / "f.tfrecord"
    for data in _mutants(seed_file, 150, seed):
        path.write_bytes(data)
        try:
            records = tfrecord2idx.index(str(path))
        except ValueError as e:
            assert str(path) in str(e)
            continue
        assert all(off >= 0 and off + n <= len(data) for off, n in records)
