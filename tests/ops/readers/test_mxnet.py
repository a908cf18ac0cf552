"""fn.readers.mxnet: RecordIO records (written by hand in tests/record_files.py), split records,
order against real DALI over shards and shuffling, corrupt records."""

from __future__ import annotations

import importlib
import re
import struct

import numpy as np
import pytest
from record_files import RECORDIO_MAGIC, mx_record, recordio

from dali._ext import records
from dali.ops.readers import mxnet


def _split(payload):
    """A record split into parts where its data holds the magic (as MXNet writes it)."""
    pieces = payload.split(struct.pack("<I", RECORDIO_MAGIC))
    out = b""
    for k, p in enumerate(pieces):
        flag = 0 if len(pieces) == 1 else 1 if k == 0 else 3 if k == len(pieces) - 1 else 2
        out += struct.pack("<II", RECORDIO_MAGIC, flag << 29 | len(p)) + p + b"\0" * (-len(p) % 4)
    return out


def _write(root, name, parts):
    """.rec files of the lists of records `parts` and their one index (in reverse order: the
    reader sorts it by offset), offsets running over the files one after the other."""
    recs, lines, base = [], [], 0
    for k, part in enumerate(parts):
        data, offsets = recordio([])
        data = bytearray(data)
        for r in part:
            lines.append(f"{len(lines)}\t{base + len(data)}\n")
            data += _split(r)
        rec = root / f"{name}{k}.rec"
        rec.write_bytes(bytes(data))
        recs.append(str(rec))
        base += len(data)
    idx = root / f"{name}.idx"
    idx.write_text("".join(lines[::-1]))
    return recs, [str(idx)]


def _records(n, start):
    rng = np.random.default_rng(start)
    out, expected = [], []
    magic = struct.pack("<I", RECORDIO_MAGIC)
    for i in range(start, start + n):
        image = bytes(rng.integers(0, 256, 3 + i % 9, dtype=np.uint8))
        if i % 4 == 1:
            image = image[:2] + magic + image[2:] + magic     # split in three parts
        label = float(i) if i % 3 else [i, 0.5, -1.0]
        out.append(mx_record(label, image, image_id=(i, 0)))
        expected.append((image, np.atleast_1d(np.asarray(label, np.float32))))
    return out, expected


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("rec")
    recs0, exp0 = _records(11, 0)
    recs1, exp1 = _records(8, 11)
    paths, index = _write(root, "a", [recs0, recs1])
    return paths, index, exp0 + exp1


def read(paths, indices, pkg="dali", iterations=3, batch_size=4, **kwargs):
    mod = importlib.import_module(pkg)
    fns = importlib.import_module(pkg + ".fn")

    @mod.pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, seed=5)
    def pipe():
        d, lbl = fns.readers.mxnet(path=paths, index_path=indices, name="R", **kwargs)
        return d, lbl, d.source_info()

    p = pipe()
    p.build()
    out = []
    for _ in range(iterations):
        d, lbl, si = p.run()
        out.append(([np.array(t) for t in d], [np.array(t) for t in lbl],
                    [bytes(np.array(t)).decode() for t in si]))
    return out, p.reader_meta("R")


def test_images_and_labels_match_what_was_written(data):
    paths, indices, expected = data
    result, meta = read(paths, indices, iterations=5)
    assert meta["epoch_size"] == 19
    k = 0
    for images, labels, infos in result:
        for image, label, info in zip(images, labels, infos, strict=True):
            ref_image, ref_label = expected[k % 19]
            assert image.dtype == np.uint8 and image.tobytes() == ref_image
            assert label.dtype == np.float32
            np.testing.assert_array_equal(label, ref_label)
            path = paths[k % 19 >= 11]
            assert re.fullmatch(re.escape(f"{path} at index ") + r"\d+", info)
            assert info.endswith(" at index 0") == (k % 19 in (0, 11))   # first of its file
            k += 1


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    dict(), dict(random_shuffle=True, initial_fill=6), dict(num_shards=3, shard_id=1),
    dict(num_shards=4, shard_id=3, pad_last_batch=True),
    dict(num_shards=2, shard_id=1, stick_to_shard=True, random_shuffle=True, initial_fill=3)])
def test_order_and_values_match_the_oracle(data, kwargs):
    pytest.importorskip("nvidia.dali")
    paths, indices, _ = data
    ours, meta = read(paths, indices, iterations=7, **kwargs)
    theirs, real_meta = read(paths, indices, pkg="nvidia.dali", iterations=7, **kwargs)
    assert meta == real_meta
    for a, b in zip(ours, theirs, strict=True):
        assert a[2] == b[2]
        for x, y in zip(a[0] + a[1], b[0] + b[1], strict=True):
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("record,message", [
    (b"\0" * 12, "bad magic number"),
    (struct.pack("<II", RECORDIO_MAGIC, 100) + b"x" * 8, "runs past the record's end"),
    (struct.pack("<II", RECORDIO_MAGIC, 1 << 29 | 4) + b"abcd", "without its last part"),
    (struct.pack("<II", RECORDIO_MAGIC, 3 << 29 | 4) + b"abcd", "without a first part"),
    (struct.pack("<II", RECORDIO_MAGIC, 8) + b"x" * 8, "less than the 24-byte header"),
    (struct.pack("<II", RECORDIO_MAGIC, 24) + struct.pack("<IfQQ", 5, 0, 0, 0),
     "announces 5 labels"),
])
def test_corrupt_records(tmp_path, record, message):
    rec, idx = tmp_path / "bad.rec", tmp_path / "bad.idx"
    rec.write_bytes(record)
    idx.write_text("0\t0\n")
    with pytest.raises(RuntimeError, match=message) as e:
        read([str(rec)], [str(idx)], batch_size=1, iterations=1)
    assert "bad.rec at index 0" in str(e.value)


def test_on_error_skip(tmp_path):
    good, expected = _records(5, 0)
    recs, idx = _write(tmp_path, "s", [good[:2] + [b"tiny"] + good[2:]])
    with pytest.warns(RuntimeWarning, match="1 sample"):
        result, meta = read(recs, idx, batch_size=5, iterations=1, on_error="skip")
    assert [x.tobytes() for x in result[0][0]] == [e[0] for e in expected]
    assert "less than the 24-byte header" in meta["skipped"][0]["reason"]


def test_bad_index(tmp_path):
    rec, idx = tmp_path / "a.rec", tmp_path / "a.idx"
    rec.write_bytes(_split(mx_record(1.0, b"x")))
    idx.write_text("0\t0\n1\t500\n")
    with pytest.raises(RuntimeError, match="past the end of the data"):
        read([str(rec)], [str(idx)], batch_size=1, iterations=1)
    idx.write_text("0\n")
    with pytest.raises(RuntimeError, match="not an index file"):
        read([str(rec)], [str(idx)], batch_size=1, iterations=1)
    with pytest.raises(RuntimeError, match="supports only a single index file"):
        read([str(rec)], [str(idx), str(idx)], batch_size=1, iterations=1)


def test_record_parser_joins_parts():
    payload = b"ab" + struct.pack("<I", RECORDIO_MAGIC) + b"cde"
    assert bytes(mxnet.record_data(_split(payload))) == payload


def test_records_of_one_part_are_copied_out_in_one_call():
    whole, expected = _records(8, 0)
    framed = [np.frombuffer(_split(r), np.uint8) for r in whole]
    one_part = [k for k in range(8) if k % 4 != 1]
    images, labels = records.recordio_outputs([framed[k] for k in one_part])
    for k, image, label in zip(one_part, images.samples(), labels.samples(), strict=True):
        assert bytes(image) == expected[k][0] and label.tolist() == expected[k][1].tolist()
    assert labels.dtype == np.float32 and images.dtype == np.uint8
    assert records.recordio_outputs(framed[:2]) is None                 # a split record
    assert records.recordio_outputs([framed[0][:-8]]) is None           # cut short


# -- shuffle_after_epoch: the order of the .rec files changes at every epoch ---------------------
@pytest.fixture(scope="module")
def five_files(tmp_path_factory):
    """5 .rec files of 1, 2, 3, 4, 5 records labelled 100 * file + record (one index)."""
    root = tmp_path_factory.mktemp("rec5")
    parts = [[mx_record(float(100 * k + i), b"x" * (i + 1)) for i in range(k + 1)]
             for k in range(5)]
    return _write(root, "r", parts)


def _labels(files, pkg="dali", iterations=15, batch_size=1, **kwargs):
    out, meta = read(*files, pkg=pkg, iterations=iterations, batch_size=batch_size,
                     shuffle_after_epoch=True, **kwargs)
    return [int(lbl[0]) for _, labels, _ in out for lbl in labels], meta


def test_shuffle_after_epoch_reads_whole_files_in_a_new_order(five_files):
    """The first epochs' file orders of real DALI 2.4 (recorded with readers.tfrecord, which
    orders its files alike)."""
    got, meta = _labels(five_files, iterations=45)
    orders = [[4, 2, 1, 0, 3], [2, 1, 0, 3, 4], [3, 2, 4, 1, 0]]
    assert got == [100 * k + i for order in orders for k in order for i in range(k + 1)]
    assert meta["stick_to_shard"] == 1


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    dict(num_shards=2, shard_id=1),
    dict(num_shards=2, shard_id=0, pad_last_batch=True, batch_size=4),
    dict(random_shuffle=True, initial_fill=3, batch_size=2, shuffle_after_epoch_seed=9)])
def test_shuffle_after_epoch_matches_the_oracle(five_files, kwargs):
    pytest.importorskip("nvidia.dali")
    assert _labels(five_files, iterations=24, **kwargs) == \
        _labels(five_files, pkg="nvidia.dali", iterations=24, **kwargs)


def test_shuffle_after_epoch_excludes_stick_to_shard(five_files):
    with pytest.raises(RuntimeError, match="shuffle_after_epoch and stick_to_shard cannot be "
                                           "both true"):
        _labels(five_files, stick_to_shard=True)
