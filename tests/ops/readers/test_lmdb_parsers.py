"""The C parsers of Caffe Datum and Caffe2 TensorProtos records (`dali._ext.records`) against
the readers' Python parsers: on well-formed records of every configuration they give the same
outputs, and a record they refuse is handed to the Python path, which gives the error; the
batch helpers `gather_spans` and `source_infos` against Python slicing and f-strings."""

from __future__ import annotations

import numpy as np
import pytest
from lmdb_utils import datum, f_bytes, f_varint, tensor_proto, tensor_protos

from dali._ext import records
from dali.ops.readers import caffe, caffe2

FLOAT, INT32, BYTE, STRING, INT64 = 1, 2, 3, 4, 10


def reader(cls, **args):
    """An unbuilt reader holding `args` over the schema defaults (its parsers need no more)."""
    r = object.__new__(cls)
    r.args = {a.name: a.default for a in cls.schema.args} | args
    return r


def infos(values):
    return [f"rec{i}" for i in range(len(values))]


def assert_storages_equal(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert (x.dtype, x.ndim) == (y.dtype, y.ndim)
        np.testing.assert_array_equal(x.shapes, y.shapes)
        for s, t in zip(x.samples(), y.samples(), strict=True):
            np.testing.assert_array_equal(s, t)


def caffe2_c(r, values):
    a = r.args
    return records.caffe2_records(values, a["image_available"], a["label_type"],
                                  a["num_labels"], a["additional_inputs"], a["bbox"],
                                  caffe2._n_outputs(a))


def check_caffe2(r, values, accepted=True):
    """The C result equals the Python path's (asserting the C parser took the batch unless
    `accepted` is False), or the C parser refused it; returns the Python result."""
    c = caffe2_c(r, values)
    data, error = r._read_python(values, infos(values))
    if c is None:
        assert not accepted
    else:
        assert error is None, error
        assert_storages_equal(c, data[0])
    return data, error


def check_caffe(r, values, accepted=True):
    c = r._read_c(values)
    data, error = r._read_python(values, infos(values))
    if c is None:
        assert not accepted
    else:
        assert error is None, error
        assert_storages_equal(c, data[0])
    return data, error


def random_caffe2(rng, label_type, additional, bbox, image_kind):
    """A batch of records of one random configuration."""
    n_labels = 6
    values = []
    label_int = bool(rng.integers(2))
    extra_types = [int(rng.choice([FLOAT, INT32, INT64])) for _ in range(additional)]
    for _ in range(int(rng.integers(1, 6))):
        packed = bool(rng.integers(2))
        protos = []
        if image_kind == STRING:
            protos.append(tensor_proto(STRING, strings=[rng.bytes(int(rng.integers(0, 40)))]
                                       * int(rng.integers(0, 3))))
        elif image_kind == BYTE:
            shape = rng.integers(0, 5, int(rng.integers(2, 4)))
            protos.append(tensor_proto(BYTE, dims=shape.tolist(),
                                       byte_data=rng.bytes(int(np.prod(shape)))))
        dt = INT32 if label_int else FLOAT
        if label_type == 0:
            protos.append(tensor_proto(dt, [int(rng.integers(-5, 5))], packed=packed))
        elif label_type == 2:
            protos.append(tensor_proto(dt, rng.integers(-9, 9, int(rng.integers(0, 5))),
                                       packed=packed))
        elif label_type in (1, 3):
            idx = rng.integers(0, n_labels, int(rng.integers(0, 4)))
            vals = idx + 0.25 * (dt == FLOAT)
            protos.append(tensor_proto(dt, vals.tolist() if dt == FLOAT else idx.tolist(),
                                       packed=packed))
            if label_type == 3 or additional or rng.integers(2):     # sparse: extras after one
                protos.append(tensor_proto(FLOAT, rng.random(len(idx) + int(rng.integers(2))),
                                           packed=packed))
        for t in extra_types:
            vals = rng.integers(-2**31, 2**31, int(rng.integers(0, 4)))
            if t == INT64:
                vals = vals * 2**20
            protos.append(tensor_proto(t, vals.tolist(), packed=packed))
        if bbox and rng.integers(4):
            protos.append(tensor_proto(INT32, rng.integers(-50, 50, 4).tolist(), packed=packed))
        values.append(tensor_protos(*protos))
    return values, n_labels


@pytest.mark.parametrize("seed", range(40))
def test_caffe2_matches_python(seed):
    rng = np.random.default_rng(seed)
    label_type = int(rng.integers(5))
    additional = int(rng.integers(3))
    bbox = bool(rng.integers(2))
    image_kind = int(rng.choice([STRING, BYTE, 0]))
    values, n_labels = random_caffe2(rng, label_type, additional, bbox, image_kind)
    if seed % 2:                    # as the reader reads them: buffers into the database
        values = [memoryview(v) for v in values]
    r = reader(caffe2.Caffe2, image_available=image_kind != 0, label_type=label_type,
               num_labels=n_labels, additional_inputs=additional, bbox=bbox)
    check_caffe2(r, values)


def test_caffe2_refused_records_give_the_python_errors():
    good = tensor_protos(tensor_proto(STRING, strings=[b"abc"]), tensor_proto(INT32, [3]))
    r = reader(caffe2.Caffe2)
    cases = {
        good[:-1]: "runs past the end",                         # truncated
        good + b"\x0f": "unsupported wire type",                # wire type 7
        good + b"\x00\x01": "field number 0",
        tensor_protos(tensor_proto(STRING, strings=[b"a"])): "list index out of range",
        tensor_protos(tensor_proto(STRING), tensor_proto(INT32, [1, 2])): "single label",
        tensor_protos(tensor_proto(INT64), tensor_proto(INT32, [1])): "image data type",
        tensor_protos(tensor_proto(BYTE, dims=[2, 2], byte_data=b"abc"),
                      tensor_proto(INT32, [1])): "3 bytes of pixels",
    }
    for value, message in cases.items():
        assert caffe2_c(r, [good, value]) is None
        data, (i, error) = check_caffe2(r, [good, value], accepted=False)
        assert data is None and i == 1 and message in error, error
    sparse = reader(caffe2.Caffe2, label_type=1, num_labels=3)
    value = tensor_protos(tensor_proto(STRING), tensor_proto(FLOAT, [3.0]))
    _, (_, error) = check_caffe2(sparse, [value], accepted=False)
    assert "label index out of range [0, 3)" in error
    mixed = [good, tensor_protos(tensor_proto(STRING), tensor_proto(FLOAT, [1.0]))]
    _, (i, error) = check_caffe2(r, mixed, accepted=False)
    assert i == 1 and "differ in type" in error


def test_caffe2_varints_past_64_bits_go_to_python():
    """A data_type varint of 10 bytes whose value has bits past 64 is no known type for the
    Python path; the C parser, truncating to 64 bits, must not read it as one."""
    string_type = bytes([0x84] + [0x80] * 8 + [0x02])         # 4 + 2**64
    proto = f_varint(1, 1)[:0] + bytes([2 << 3]) + string_type + f_bytes(6, b"x")
    value = f_bytes(1, proto) + f_bytes(1, tensor_proto(INT32, [1]))
    r = reader(caffe2.Caffe2)
    assert caffe2_c(r, [value]) is None
    _, (_, error) = r._read_python([value], ["rec0"])
    assert "unsupported image data type" in error


@pytest.mark.parametrize("seed", range(20))
def test_caffe_matches_python(seed):
    rng = np.random.default_rng(seed)
    raw = bool(rng.integers(2))
    values = []
    for _ in range(int(rng.integers(1, 6))):
        if raw:
            shape = rng.integers(0, 5, 3)
            values.append(datum(rng.bytes(int(np.prod(shape))), int(rng.integers(-2**31, 2**31)),
                                shape.tolist(), encoded=False))
        else:
            values.append(datum(rng.bytes(int(rng.integers(0, 50))), int(rng.integers(-9, 9)),
                                encoded=[None, True][int(rng.integers(2))]))
    if seed % 2:
        values = [memoryview(v) for v in values]
    for image, label in ((True, True), (True, False), (False, True)):
        check_caffe(reader(caffe.Caffe, image_available=image, label_available=label), values)


def test_caffe_refused_records_give_the_python_errors():
    good = datum(b"abc", 1)
    r = reader(caffe.Caffe)
    cases = {
        good[:-2]: "Error while parsing Caffe file: rec1 (raw data length: 6 bytes)",
        datum(label=1): "rec1 has no image data",
        datum(b"abc"): "rec1 has no label",
        datum(b"abc", 1, (1, 2, 2), encoded=False): "3 bytes of pixels for a (2, 2, 1) image",
        datum(b"abcd", 1, (1, 2, 2), encoded=False): "mixes encoded images and raw",
    }
    for value, message in cases.items():
        data, (i, error) = check_caffe(r, [good, value], accepted=False)
        assert data is None and i == 1 and message in error, error
    # without the image output, image problems do not matter
    check_caffe(reader(caffe.Caffe, image_available=False), [good, datum(label=2)])


def test_gather_spans_checks_its_spans():
    from dali._ext.tensor_storage import BatchStorage

    out = BatchStorage.allocate(np.uint8, [(2,)], ndim=1)
    with pytest.raises(ValueError, match="does not fit"):
        records.gather_spans([b"abc"], [2], [4], out)
    records.gather_spans([b"abc"], [1], [3], out)
    assert out.sample(0).tobytes() == b"bc"


def test_source_infos_match_the_python_strings():
    blob = b"key\0tail" + "é".encode() + b"\xff.jpg" + b"plain"
    spans = [(0, 8), (8, 10), (8, 15), (15, 20), (3, 3)]
    starts, stops = np.array(spans).T
    which = np.array([0, 1, 0, 1, 1])
    for prefixes in (["a.tar:", "b\u00e9 at key "], ["a.tar:", "\udcff at key "]):  # no UTF-8
        got = records.source_infos(prefixes, which, blob, starts, stops, errors="replace")
        assert got == [prefixes[w] + blob[s:e].decode("utf-8", "replace")
                       for w, (s, e) in zip(which, spans, strict=True)]
    prefixes = ["a.tar:", "b at key "]
    for errors in ("replace", "surrogateescape"):
        got = records.source_infos(prefixes, which, blob, starts, stops, errors=errors,
                                   cut_at_nul=True)
        assert got == [prefixes[w] + blob[s:e].split(b"\0", 1)[0].decode("utf-8", errors)
                       for w, (s, e) in zip(which, spans, strict=True)]
    numbers = np.array([512, -1, 2**40, 0, 7])
    present = np.array([True, False, True, True, True])
    got = records.source_infos(prefixes, which, blob, starts, stops, numbers=numbers,
                               present=present, errors="surrogateescape")
    assert got == [f"{prefixes[w]}{k}:{blob[s:e].decode('utf-8', 'surrogateescape')}"
                   if p else "" for w, k, p, (s, e) in zip(which, numbers, present, spans,
                                                          strict=True)]
    none = np.zeros(5, np.int64)
    got = records.source_infos(["r.rec at index "], np.zeros(5), b"", none, none,
                               numbers=numbers, colon=False)
    assert got == [f"r.rec at index {k}" for k in numbers]
    with pytest.raises(ValueError, match="outside the blob"):
        records.source_infos(prefixes, [0], blob, [20], [22])
    with pytest.raises(ValueError, match="no such prefix"):
        records.source_infos(prefixes, [2], blob, [0], [1])
    with pytest.raises(UnicodeDecodeError):
        records.source_infos(prefixes, [0], blob, [8], [15])
