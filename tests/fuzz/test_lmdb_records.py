"""Fuzzing the C parsers of Caffe Datum and Caffe2 TensorProtos records
(`dali._ext.records.caffe_datums`, `caffe2_records`) against the readers' Python parsers:
mutated records are parsed by both; the C parser either refuses a batch (the reader then parses
it in Python) or gives exactly the Python path's outputs, and never reads past a record."""

from __future__ import annotations

import numpy as np
import pytest

from dali._ext import records
from dali.ops.readers import caffe, caffe2
from tests.fuzz.test_records import _mutants
from tests.lmdb_utils import datum, tensor_proto, tensor_protos

FLOAT, INT32, BYTE, STRING, INT64 = 1, 2, 3, 4, 10


def _reader(cls, **args):
    r = object.__new__(cls)
    r.args = {a.name: a.default for a in cls.schema.args} | args
    return r


def _same(c, python):
    data, error = python
    assert error is None, error
    assert len(c) == len(data[0])
    for x, y in zip(c, data[0], strict=True):
        assert (x.dtype, x.ndim) == (y.dtype, y.ndim)
        np.testing.assert_array_equal(x.shapes, y.shapes)
        for s, t in zip(x.samples(), y.samples(), strict=True):
            np.testing.assert_array_equal(s, t)


CAFFE2_SEEDS = [
    (dict(additional_inputs=2, bbox=True),
     tensor_protos(tensor_proto(STRING, strings=[b"image bytes"]), tensor_proto(INT32, [7]),
                   tensor_proto(FLOAT, [0.5, -2.0]), tensor_proto(INT64, [-(2 ** 40), 3]),
                   tensor_proto(INT32, [1, 2, 3, 4], packed=False))),
    (dict(label_type=1, num_labels=5, additional_inputs=1),
     tensor_protos(tensor_proto(BYTE, dims=[2, 3], byte_data=bytes(range(6))),
                   tensor_proto(FLOAT, [1.0, 4.0]), tensor_proto(FLOAT, [0.25, 0.5]),
                   tensor_proto(INT32, [5, -6], packed=False))),
    (dict(label_type=3, num_labels=4),
     tensor_protos(tensor_proto(BYTE, dims=[1, 2, 2], byte_data=b"abcd"),
                   tensor_proto(INT32, [0, 3]), tensor_proto(FLOAT, [0.25, 0.75]))),
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("case", range(len(CAFFE2_SEEDS)))
def test_caffe2_records_refuse_or_match_python(case, seed):
    args, seed_record = CAFFE2_SEEDS[case]
    r = _reader(caffe2.Caffe2, **args)
    a = r.args
    parsed = 0
    for data in _mutants(seed_record, 300, seed):
        batch = [seed_record, data]
        c = records.caffe2_records(batch, a["image_available"], a["label_type"],
                                   a["num_labels"], a["additional_inputs"], a["bbox"],
                                   caffe2._n_outputs(a))
        if c is not None:
            _same(c, r._read_python(batch, ["a", "b"]))
            parsed += 1
    assert parsed > 0            # some mutants parse, so the comparison ran


@pytest.mark.parametrize("seed", range(3))
def test_caffe_datums_refuse_or_match_python(seed):
    encoded = datum(b"jpeg bytes" * 3, 5)
    raw = datum(bytes(range(12)), -3, (3, 2, 2), encoded=False)
    for seed_record in (encoded, raw):
        r = _reader(caffe.Caffe)
        for data in _mutants(seed_record, 300, seed):
            table = records.caffe_datums([data])
            if table is None:
                continue
            flags, start, stop = table[0, :3].tolist()
            assert not flags & 1 or 0 <= start <= stop <= len(data)
            c = r._read_c([seed_record, data])
            if c is not None:
                _same(c, r._read_python([seed_record, data], ["a", "b"]))
