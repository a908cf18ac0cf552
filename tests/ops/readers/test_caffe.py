"""fn.readers.caffe: Datum records of LMDB databases (encoded and raw images, labels), order
over databases and shards, errors."""

from __future__ import annotations

import numpy as np
import pytest
from lmdb_utils import assert_same, datum, run, write_db

pytest.importorskip("lmdb")


@pytest.fixture(scope="module")
def dbs(tmp_path_factory):
    root = tmp_path_factory.mktemp("caffe")
    encoded = write_db(root / "enc", [(b"k%02d" % i, datum(b"img%d" % i * 3, i - 3))
                                      for i in (5, 1, 3, 2, 4)])
    raw = write_db(root / "raw", [(b"a%d" % i, datum(bytes(range(i, i + 12)), 100 + i,
                                                     (3, 2, 2), encoded=False))
                                  for i in range(4)])
    return encoded, raw


def test_encoded_images_labels_and_source_info(dbs):
    (first, second), meta = run("dali", "caffe", path=dbs[0])
    assert meta["epoch_size"] == 5
    images, labels, image_info, label_info = first
    assert [x.tobytes() for x in images] == [b"img1" * 3, b"img2" * 3, b"img3" * 3]
    assert [x.tolist() for x in labels] == [[-2], [-1], [0]]        # negative int32 labels
    assert labels[0].dtype == np.int32
    assert [bytes(x) for x in image_info] == [f"{dbs[0]} at key k0{i}".encode()
                                              for i in (1, 2, 3)]
    assert [bytes(x) for x in label_info] == [b""] * 3
    assert [x.tobytes() for x in second[0]] == [b"img4" * 3, b"img5" * 3, b"img1" * 3]


def test_raw_images_and_optional_outputs(dbs):
    (out,), _ = run("dali", "caffe", path=dbs[1], iterations=1, label_available=False)
    assert len(out) == 2
    np.testing.assert_array_equal(out[0][1], np.arange(1, 13, dtype=np.uint8).reshape(2, 2, 3))
    (out,), _ = run("dali", "caffe", path=[dbs[1], dbs[0]], iterations=1, batch_size=4,
                    image_available=False)
    assert [x.tolist() for x in out[0]] == [[100], [101], [102], [103]]


def test_errors(dbs, tmp_path):
    with pytest.raises(RuntimeError, match="mixes encoded images and raw"):
        run("dali", "caffe", path=[dbs[1], dbs[0]], batch_size=5)
    bad = write_db(tmp_path / "bad", [(b"x", b"\x22\x05abc")])      # data runs past the end
    with pytest.raises(RuntimeError, match=f"Error while parsing Caffe file: {bad} at key x "
                                           r"\(raw data length: 5 bytes\)"):
        run("dali", "caffe", path=bad, batch_size=1)
    nolabel = write_db(tmp_path / "nolabel", [(b"x", datum(b"abc"))])
    with pytest.raises(RuntimeError, match="at key x has no label"):
        run("dali", "caffe", path=nolabel, batch_size=1)
    with pytest.raises(RuntimeError, match="LMDB error opening"):
        run("dali", "caffe", path=str(tmp_path / "missing"))


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {}, {"num_shards": 3, "shard_id": 1}, {"num_shards": 2, "shard_id": 1,
                                           "pad_last_batch": True},
    {"random_shuffle": True, "initial_fill": 3}, {"stick_to_shard": True, "num_shards": 3,
                                                  "shard_id": 2},
    {"image_available": False},
])
def test_matches_dali(dbs, kwargs):
    pytest.importorskip("nvidia.dali")
    kwargs = {"path": [dbs[0], dbs[0]], "iterations": 5, **kwargs}
    mine, meta = run("dali", "caffe", **kwargs)
    theirs, their_meta = run("nvidia.dali", "caffe", **kwargs)
    assert_same(mine, theirs)
    assert meta == their_meta


@pytest.mark.oracle
def test_raw_matches_dali(dbs):
    pytest.importorskip("nvidia.dali")
    assert_same(run("dali", "caffe", path=dbs[1])[0],
                run("nvidia.dali", "caffe", path=dbs[1])[0])


def test_on_error_skip_drops_records_that_do_not_parse(tmp_path):
    bad = {3: b"\x22\x05abc", 6: datum(b"no label")}          # data past the end, no label
    path = write_db(tmp_path / "db", [(b"k%02d" % i, bad.get(i, datum(b"img%d" % i, 10 * i)))
                                      for i in range(10)])
    with pytest.warns(RuntimeWarning, match=r"2 sample\(s\) that could not be read"):
        result, meta = run("dali", "caffe", path=path, batch_size=4, on_error="skip")
    images = [x.tobytes() for batch in result for x in batch[0]]
    labels = [x.tolist() for batch in result for x in batch[1]]
    infos = [bytes(x).decode() for batch in result for x in batch[2]]
    good = [i for i in range(10) if i not in bad]
    assert images == [b"img%d" % i for i in good]
    assert labels == [[10 * i] for i in good]
    assert infos == [f"{path} at key k{i:02d}" for i in good]
    skipped = meta["skipped"]
    assert [s["sample"] for s in skipped][:2] == [f"{path} at key k03", f"{path} at key k06"]
    assert "Error while parsing Caffe file" in skipped[0]["reason"]
    assert "has no label" in skipped[1]["reason"]
    with pytest.raises(RuntimeError, match=f"Error while parsing Caffe file: {path} at key k03"):
        run("dali", "caffe", path=path, batch_size=4)


def test_one_corrupt_record_in_a_thousand_is_skipped(tmp_path):
    n, bad = 2000, {999, 1500}
    path = write_db(tmp_path / "db", [(b"%04d" % i, b"\x22\x05abc" if i in bad else
                                       datum(b"%d" % i, i)) for i in range(n)])
    with pytest.warns(RuntimeWarning, match=r"2 sample\(s\)"):
        result, meta = run("dali", "caffe", path=path, batch_size=64, iterations=32,
                           on_error="skip")
    labels = [int(x[0]) for batch in result for x in batch[1]]
    images = [x.tobytes() for batch in result for x in batch[0]]
    good = [i for i in range(n) if i not in bad]
    assert labels[:len(good)] == good                  # the epoch: each good record once
    assert images[:len(good)] == [b"%d" % i for i in good]
    assert labels[len(good):] == good[:64 * 32 - len(good)]   # then the next epoch's
    assert sorted(s["sample"] for s in meta["skipped"]) == [f"{path} at key {i:04d}"
                                                             for i in sorted(bad)]
