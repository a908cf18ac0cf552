"""fn.readers.caffe2: TensorProtos records of LMDB databases (encoded and raw images, the
label types, additional inputs, boxes), order, errors."""

from __future__ import annotations

import numpy as np
import pytest
from lmdb_utils import assert_same, run, tensor_proto, tensor_protos, write_db

pytest.importorskip("lmdb")

FLOAT, INT32, BYTE, STRING, INT64 = 1, 2, 3, 4, 10


def record(i, packed=True):
    """Image (STRING), int label, sparse-style float indices, an int64 extra, a box."""
    return tensor_protos(
        tensor_proto(STRING, strings=[b"img%d" % i * 2]),
        tensor_proto(INT32, [i % 3 - 1], packed=packed),
        tensor_proto(FLOAT, [0.5 * i, 1.5], packed=packed),
        tensor_proto(INT64, [i, -(2 ** 40)], packed=packed),
        tensor_proto(INT32, [i, i + 1, i + 2, i + 3], packed=packed))


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    root = tmp_path_factory.mktemp("caffe2")
    return write_db(root / "db", [(b"r%02d" % i, record(i, packed=i % 2 == 0))
                                  for i in range(7)])


def test_outputs(db):
    (out, _), meta = run("dali", "caffe2", path=db, additional_inputs=2, bbox=True)
    assert meta["epoch_size"] == 7
    images, labels, floats, longs, boxes, info = out[:6]
    assert [x.tobytes() for x in images] == [b"img0" * 2, b"img1" * 2, b"img2" * 2]
    assert [x.tolist() for x in labels] == [[-1], [0], [1]] and labels[0].dtype == np.int32
    assert [x.tolist() for x in floats] == [[0.0, 1.5], [0.5, 1.5], [1.0, 1.5]]
    assert [x.tolist() for x in longs] == [[i, -(2 ** 40)] for i in range(3)]
    assert longs[0].dtype == np.int64
    assert [x.tolist() for x in boxes] == [[i, i + 1, i + 2, i + 3] for i in range(3)]
    assert [bytes(x) for x in info] == [f"{db} at key r0{i}".encode() for i in range(3)]


def test_label_types(tmp_path):
    rec = tensor_protos(tensor_proto(BYTE, dims=[2, 2], byte_data=bytes([1, 2, 3, 4])),
                        tensor_proto(INT32, [0, 3]), tensor_proto(FLOAT, [0.25, 0.75]),
                        tensor_proto(FLOAT, [9.0]))
    path = write_db(tmp_path / "db", [(b"a", rec)])
    (out,), _ = run("dali", "caffe2", path=path, iterations=1, batch_size=1, label_type=1,
                    num_labels=5, additional_inputs=1)
    assert out[0][0].shape == (2, 2, 1) and out[0][0].ravel().tolist() == [1, 2, 3, 4]
    assert out[1][0].tolist() == [1, 0, 0, 1, 0] and out[1][0].dtype == np.int32
    assert out[2][0].tolist() == [9.0]          # sparse labels: the extras skip a proto
    (out,), _ = run("dali", "caffe2", path=path, iterations=1, batch_size=1, label_type=3,
                    num_labels=4, additional_inputs=1)
    assert out[1][0].tolist() == [0.25, 0, 0, 0.75] and out[1][0].dtype == np.float32
    assert out[2][0].tolist() == [0.25, 0.75]   # DALI reads the weights again as the extra
    (out,), _ = run("dali", "caffe2", path=path, iterations=1, batch_size=1, label_type=2)
    assert out[1][0].tolist() == [0, 3]
    (out,), _ = run("dali", "caffe2", path=path, iterations=1, batch_size=1, label_type=4,
                    additional_inputs=1)
    assert len(out) == 4 and out[1][0].tolist() == [0, 3]      # no label: extras follow image


def test_errors(tmp_path):
    path = write_db(tmp_path / "db", [(b"a", tensor_protos(tensor_proto(STRING, strings=[b"x"]),
                                                          tensor_proto(INT32, [1, 2])))])
    with pytest.raises(RuntimeError, match="a single label expected, the record has 2"):
        run("dali", "caffe2", path=path, batch_size=1)
    with pytest.raises(RuntimeError, match=r"label index out of range \[0, 2\)"):
        run("dali", "caffe2", path=path, batch_size=1, label_type=1, num_labels=2)
    with pytest.raises(RuntimeError, match="Unsupported label type 7"):
        run("dali", "caffe2", path=path, label_type=7)
    bad = write_db(tmp_path / "bad", [(b"k", b"\x0a\x09\x10")])
    with pytest.raises(RuntimeError, match=f"Error while parsing Caffe2 file: {bad} at key k"):
        run("dali", "caffe2", path=bad, batch_size=1)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"additional_inputs": 2, "bbox": True},
    {"label_type": 2, "additional_inputs": 1},
    {"label_type": 4, "additional_inputs": 2},
    {"random_shuffle": True, "initial_fill": 2, "num_shards": 2, "shard_id": 1},
    {"num_shards": 3, "shard_id": 2, "pad_last_batch": True, "stick_to_shard": True},
])
def test_matches_dali(db, kwargs):
    pytest.importorskip("nvidia.dali")
    kwargs = {"path": db, "iterations": 4, **kwargs}
    mine, meta = run("dali", "caffe2", **kwargs)
    theirs, their_meta = run("nvidia.dali", "caffe2", **kwargs)
    assert_same(mine, theirs)
    assert meta == their_meta


def test_on_error_skip_drops_records_that_do_not_parse(tmp_path):
    bad = {0: b"\x0a\x09\x10", 4: tensor_protos(tensor_proto(STRING, strings=[b"x"]),
                                                 tensor_proto(INT32, [1, 2]))}
    path = write_db(tmp_path / "db", [(b"r%d" % i, bad.get(i, record(i))) for i in range(8)])
    with pytest.warns(RuntimeWarning, match=r"2 sample\(s\) that could not be read"):
        result, meta = run("dali", "caffe2", path=path, batch_size=3, on_error="skip",
                           additional_inputs=2, bbox=True)
    good = [i for i in range(8) if i not in bad]
    column = [[x for batch in result for x in batch[k]] for k in range(6)]
    assert [x.tobytes() for x in column[0]] == [b"img%d" % i * 2 for i in good]
    assert [x.tolist() for x in column[1]] == [[i % 3 - 1] for i in good]
    assert [x.tolist() for x in column[2]] == [[0.5 * i, 1.5] for i in good]
    assert [x.tolist() for x in column[4]] == [[i, i + 1, i + 2, i + 3] for i in good]
    assert [bytes(x).decode() for x in column[5]] == [f"{path} at key r{i}" for i in good]
    skipped = meta["skipped"]
    assert [s["sample"] for s in skipped][:2] == [f"{path} at key r0", f"{path} at key r4"]
    assert "Error while parsing Caffe2 file" in skipped[0]["reason"]
    assert "a single label expected" in skipped[1]["reason"]
    with pytest.raises(RuntimeError, match=f"Error while parsing Caffe2 file: {path} at key r0"):
        run("dali", "caffe2", path=path, batch_size=3)
