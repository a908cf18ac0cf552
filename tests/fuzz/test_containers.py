"""Fuzzing the container parsers of the readers (tar headers, webdataset index files): mutated
inputs are parsed in process; each must parse or be refused with the parser's own error,
never fail another way, and what parses must describe byte ranges inside the file."""

from __future__ import annotations

import io
import tarfile

import numpy as np
import pytest

from dali.ops.readers import _tar, webdataset


def _tar_seed():
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data in (("a.jpg", b"abc" * 50), ("a.cls", b"1"), ("d" * 120 + ".txt", b"x"),
                           ("\u00e9.bin", bytes(600))):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _mutants(data, n, seed):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        buf = bytearray(data)
        how = rng.integers(4)
        if how == 0:                                   # bit flips
            for at in rng.integers(0, len(buf), rng.integers(1, 8)):
                buf[at] ^= 1 << int(rng.integers(8))
        elif how == 1:                                 # truncation
            del buf[rng.integers(0, len(buf)):]
        elif how == 2:                                 # a header field overwritten
            at = 512 * int(rng.integers(0, max(1, len(buf) // 512))) + \
                int(rng.choice([100, 124, 148, 156, 345]))
            buf[at:at + 12] = rng.choice([b"777777777777", b"\x80" + bytes(10) + b"\xff",
                                          b"-1\0", b"\xff" * 12])
        else:                                          # a block duplicated
            at = 512 * int(rng.integers(0, max(1, len(buf) // 512)))
            buf[at:at] = buf[at:at + 512]
        yield bytes(buf)


@pytest.mark.parametrize("seed", range(4))
def test_tar_members_parse_or_refuse(tmp_path, seed):
    path = tmp_path / "m.tar"
    for data in _mutants(_tar_seed(), 150, seed):
        path.write_bytes(data)
        try:
            names, offsets, sizes = _tar.members(str(path))
        except _tar.TarError as e:
            assert str(path) in str(e)
            continue
        assert len(names) == len(offsets) == len(sizes)
        assert ((offsets >= 0) & (sizes >= 0) & (offsets + sizes <= len(data))).all()


def _index_seed():
    return b"v1.2 2\njpg 512 150 a.jpg cls 1024 1 a.cls\ntxt 2048 1 b.txt\n"


@pytest.mark.parametrize("seed", range(2))
def test_index_parse_or_refuse(tmp_path, seed):
    path = tmp_path / "m.idx"
    for data in _mutants(_index_seed(), 200, seed):
        path.write_bytes(data)
        try:
            components, starts, lines = webdataset.read_index(str(path))
        except RuntimeError as e:
            assert str(path) in str(e)
            continue
        assert starts[-1] == len(components) and len(lines) == len(starts) - 1
        assert all(offset % 512 == 0 for _, offset, _, _ in components)


def _protobuf_seeds():
    datum = (b"\x08\x03\x10\x02\x18\x02" + b"\x22\x0c" + bytes(range(12)) + b"\x28\x07"
             + b"\x38\x00")
    proto = (b"\x08\x02\x08\x02\x10\x02" + b"\x22\x03\x01\x80\x01" + b"\x1a\x08" + bytes(8)
             + b"\x52\x02\x05\x06" + b"\x32\x03abc" + b"\x2a\x02xy")
    return [datum, b"\x0a" + bytes([len(proto)]) + proto]


@pytest.mark.parametrize("seed", range(2))
def test_protobuf_records_parse_or_refuse(seed):
    from dali import _protobuf_wire as wire
    from dali.ops.readers import caffe, caffe2

    for base in _protobuf_seeds():
        for data in _mutants(base, 300, seed):
            try:
                span, shape, _ = caffe.parse_datum(data)
                if span is not None:
                    assert 0 <= span[0] <= span[1] <= len(data)
                for number, kind, value in wire.fields(data):
                    if number == 1 and kind == wire.LENGTH:
                        proto = caffe2.Proto(data, value)
                        for field in (3, 4, 10):
                            proto.numbers(field)
                        for field in (5, 6):
                            got = proto.span(field)
                            assert got is None or 0 <= got[0] <= got[1] <= len(data)
            except wire.WireError:
                continue
