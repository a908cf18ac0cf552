"""Test data for the LMDB readers: protobuf wire encoding (Caffe Datum, Caffe2 TensorProtos)
and databases written with the `lmdb` package (tests skip without it)."""

from __future__ import annotations

import importlib
import struct

import numpy as np
import pytest


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | 0x80 if v else b)
        if not v:
            return bytes(out)


def f_varint(n, v):
    return varint(n << 3) + varint(v)


def f_bytes(n, b):
    return varint(n << 3 | 2) + varint(len(b)) + b


def datum(data=None, label=None, shape=None, encoded=None):
    """A Caffe Datum; `shape` is (channels, height, width)."""
    out = b""
    if shape is not None:
        out += b"".join(f_varint(k + 1, v) for k, v in enumerate(shape))
    if data is not None:
        out += f_bytes(4, data)
    if label is not None:
        out += f_varint(5, label)
    if encoded is not None:
        out += f_varint(7, int(encoded))
    return out


def tensor_proto(data_type, values=(), dims=(), strings=(), byte_data=None, packed=True):
    """A Caffe2 TensorProto (FLOAT=1 in float_data, INT32=2 in int32_data, INT64=10 in
    int64_data, STRING=4 in string_data, BYTE=3 in byte_data)."""
    out = b"".join(f_varint(1, d) for d in dims) + f_varint(2, data_type)
    if data_type == 1 and len(values):
        body = b"".join(struct.pack("<f", v) for v in values)
        out += f_bytes(3, body) if packed else b"".join(
            varint(3 << 3 | 5) + struct.pack("<f", v) for v in values)
    field = {2: 4, 10: 10}.get(data_type)
    if field and len(values):
        body = b"".join(varint(int(v)) for v in values)
        out += f_bytes(field, body) if packed else b"".join(
            f_varint(field, int(v)) for v in values)
    if byte_data is not None:
        out += f_bytes(5, byte_data)
    for s in strings:
        out += f_bytes(6, s)
    return out


def tensor_protos(*protos):
    return b"".join(f_bytes(1, p) for p in protos)


def write_db(path, records):
    """An LMDB at `path` of (key, value) records."""
    lmdb = pytest.importorskip("lmdb")
    env = lmdb.open(str(path), map_size=1 << 22)
    with env.begin(write=True) as txn:
        for key, value in records:
            txn.put(key, value)
    env.close()
    return str(path)


def run(pkg, op, iterations=2, batch_size=3, pipeline_seed=3, **kwargs):
    """Per iteration: per output, its samples (then each output's source infos)."""
    mod = importlib.import_module(pkg)
    fns = importlib.import_module(pkg + ".fn")

    @mod.pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, seed=pipeline_seed)
    def pipe():
        outs = getattr(fns.readers, op)(name="R", **kwargs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        return (*outs, *[o.source_info() for o in outs])

    p = pipe()
    p.build()
    result = []
    for _ in range(iterations):
        out = p.run()
        result.append([[np.array(x[i]) for i in range(len(x))] for x in out])
    return result, p.reader_meta("R")


def assert_same(a, b):
    """Two `run` results hold the same samples (values, dtypes and shapes)."""
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert len(x) == len(y)
        for s, t in zip(x, y, strict=True):
            assert [(v.dtype, v.shape) for v in s] == [(v.dtype, v.shape) for v in t]
            for v, w in zip(s, t, strict=True):
                np.testing.assert_array_equal(v, w)
