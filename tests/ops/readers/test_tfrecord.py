"""fn.readers.tfrecord and dali.tfrecord: features of Example records (written by hand in
tests/record_files.py), order against real DALI, framing and protobuf errors, the index tool."""

from __future__ import annotations

import importlib
import struct

import numpy as np
import pytest
from record_files import example, tfrecord, write_tfrecord

from dali._ext import records
from dali.tools import tfrecord2idx


def _records(n, start=0, packed=True):
    rng = np.random.default_rng(start)
    out = []
    for i in range(start, start + n):
        out.append(example({
            "image": bytes(rng.integers(0, 256, 5 + i % 7, dtype=np.uint8)),
            "label": [i - 3],
            "box": rng.uniform(-1, 1, 4).astype(np.float32).tolist(),
            "ids": [(-1) ** k * k * 1000003 for k in range(i % 5)],
            "name": [f"n{i}", "second"]}, packed=packed))
    return out


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("tfr")
    paths, indices = [], []
    for k, (n, start) in enumerate([(13, 0), (9, 13)]):
        paths.append(str(root / f"part{k}.tfrecord"))
        indices.append(str(root / f"part{k}.idx"))
        write_tfrecord(paths[-1], _records(n, start, packed=k == 0), indices[-1])
    return paths, indices


def features(tfrec):
    return {"image": tfrec.FixedLenFeature((), tfrec.string, ""),
            "label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
            "box": tfrec.FixedLenFeature([2, 2], tfrec.float32, 0.0),
            "ids": tfrec.VarLenFeature(tfrec.int64, 0),
            "pairs": tfrec.VarLenFeature([2], tfrec.float32, 0.0),
            "name": tfrec.FixedLenFeature([], tfrec.string, "")}


def read(paths, indices, pkg="dali", iterations=3, batch_size=4, feats=None, **kwargs):
    mod = importlib.import_module(pkg)
    fns = importlib.import_module(pkg + ".fn")
    tfrec = importlib.import_module(pkg + ".tfrecord")
    feats = feats(tfrec) if feats else features(tfrec)

    @mod.pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, seed=5)
    def pipe():
        out = fns.readers.tfrecord(path=paths, index_path=indices, features=feats, name="R",
                                   **kwargs)
        assert isinstance(out, dict) and list(out) == list(feats)
        return (*out.values(), next(iter(out.values())).source_info())

    p = pipe()
    p.build()
    result = []
    for _ in range(iterations):
        *outs, si = p.run()
        result.append(([[np.array(t) for t in o] for o in outs],
                       [bytes(np.array(t)).decode() for t in si]))
    return result, p.reader_meta("R")


def test_values_match_what_was_written(data):
    paths, indices = data
    result, meta = read(*data, iterations=6)
    assert meta["epoch_size"] == 22
    rng_records = {}
    for start, n in ((0, 13), (13, 9)):
        rng = np.random.default_rng(start)
        for i in range(start, start + n):
            rng_records[i] = (bytes(rng.integers(0, 256, 5 + i % 7, dtype=np.uint8)),
                              rng.uniform(-1, 1, 4).astype(np.float32))
    i = 0
    for outs, infos in result:
        for k in range(4):
            j = i % 22
            image, box = rng_records[j]
            assert outs[0][k].dtype == np.uint8 and outs[0][k].tobytes() == image
            assert outs[1][k].dtype == np.int64 and outs[1][k].tolist() == [j - 3]
            np.testing.assert_array_equal(outs[2][k], box.reshape(2, 2))
            assert outs[3][k].tolist() == [(-1) ** m * m * 1000003 for m in range(j % 5)]
            assert outs[4][k].shape == (0, 2)                    # not in the records
            assert outs[5][k].tobytes() == f"n{j}".encode()      # a string's first value
            assert infos[k].startswith(paths[j >= 13]) and " at index " in infos[k]
            i += 1


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    dict(), dict(random_shuffle=True, initial_fill=5), dict(num_shards=3, shard_id=2),
    dict(num_shards=4, shard_id=1, pad_last_batch=True),
    dict(num_shards=3, shard_id=0, stick_to_shard=True, random_shuffle=True, initial_fill=4)])
def test_order_values_and_meta_match_the_oracle(data, kwargs):
    pytest.importorskip("nvidia.dali")

    def feats(tfrec):
        f = features(tfrec)
        del f["pairs"]                       # DALI returns garbage for missing features
        return f

    ours, meta = read(*data, iterations=8, feats=feats, **kwargs)
    theirs, real_meta = read(*data, pkg="nvidia.dali", iterations=8, feats=feats, **kwargs)
    assert meta == real_meta
    for (a, ia), (b, ib) in zip(ours, theirs, strict=True):
        assert ia == ib
        for x, y in zip(a, b, strict=True):
            for s, t in zip(x, y, strict=True):
                assert s.dtype == t.dtype and s.shape == t.shape
                np.testing.assert_array_equal(s, t)


def test_missing_fixed_length_features_give_their_default(tmp_path):
    path, idx = str(tmp_path / "a.tfrecord"), str(tmp_path / "a.idx")
    write_tfrecord(path, [example({"x": [1]})], idx)
    (outs, _), = read([path], [idx], batch_size=1, iterations=1, feats=lambda t: {
        "m": t.FixedLenFeature([2], t.float32, 2.5), "s": t.FixedLenFeature([], t.string, "d"),
        "x": t.FixedLenFeature([], t.int64, 0)})[0]
    assert outs[0][0].tolist() == [2.5, 2.5] and outs[1][0].tobytes() == b"d"
    assert outs[2][0].shape == () and outs[2][0] == 1


def _corrupt(tmp_path, data):
    path, idx = str(tmp_path / "bad.tfrecord"), str(tmp_path / "bad.idx")
    with open(path, "wb") as f:
        f.write(data)
    with open(idx, "w") as f:
        f.write(f"0 {len(data)}\n")
    return [path], [idx]


@pytest.mark.parametrize("data,message", [
    (tfrecord([b"\x0a\x05\x0a\x03"]), "truncated message"),
    (tfrecord([b"\x0a\x80"]), "truncated varint"),
    (tfrecord([b"\x0b"]), "unsupported wire type"),
    (tfrecord([example({"label": [1.5]})]), "'label' holds float values, not int64"),
    (tfrecord([example({"label": [1, 2]})]), "has 2 values, more than its shape"),
    (tfrecord([example({"label": []})]), "has 0 values, its shape"),
    (struct.pack("<Q", 99) + bytes(20), "length field does not match its index entry"),
])
def test_corrupt_records_name_the_record(tmp_path, data, message):
    paths, idx = _corrupt(tmp_path, data)
    with pytest.raises(RuntimeError, match=message) as e:
        read(paths, idx, batch_size=1, iterations=1,
             feats=lambda t: {"label": t.FixedLenFeature([1], t.int64, 0)})
    assert "bad.tfrecord at index 0" in str(e.value)


def test_on_error_skip_drops_corrupt_records(tmp_path):
    good = _records(6)
    records = good[:2] + [b"\x0b"] + good[2:]
    path, idx = str(tmp_path / "s.tfrecord"), str(tmp_path / "s.idx")
    write_tfrecord(path, records, idx)
    with pytest.warns(RuntimeWarning, match="1 sample"):
        result, meta = read([path], [idx], batch_size=3, iterations=2, on_error="skip")
    labels = [int(x[0]) for outs, _ in result for x in outs[1]]
    assert labels == [-3, -2, -1, 0, 1, 2]
    assert meta["skipped"][0]["reason"].endswith("unsupported wire type")



@pytest.mark.parametrize("cut,shuffle", [(4, False), (5, False), (5, True)])
def test_a_file_cut_short_names_the_record_it_ends_in(tmp_path, cut, shuffle):
    """The records of a batch in stored order are read as one range, shuffled ones one by one:
    either way the error names the record the file ends in, and how far into it."""
    import dali

    path, idx = str(tmp_path / "t.tfrecord"), str(tmp_path / "t.idx")
    write_tfrecord(path, _records(6), idx)
    with open(idx) as f:
        offsets = [int(line.split()[0]) for line in f]

    @dali.pipeline_def(batch_size=6, num_threads=1, device_id=None, seed=5)
    def pipe():
        return dali.fn.readers.tfrecord(
            path=[path], index_path=[idx], random_shuffle=shuffle,
            features={"label": dali.tfrecord.FixedLenFeature([1], dali.tfrecord.int64, 0)}
        )["label"]

    p = pipe()
    p.build()
    with open(path, "r+b") as f:
        f.truncate(offsets[cut] + 3)
    with pytest.raises(RuntimeError, match=f"t.tfrecord at index {offsets[cut]}: the file "
                                           "ends 3 bytes into the record"):
        p.run()

@pytest.mark.parametrize("kwargs,message", [
    (dict(index_path=[]), "one index per file"),
    (dict(features={"s": "nope"}), "must be a dali.tfrecord.Feature"),
])
def test_bad_arguments(data, kwargs, message):
    import dali
    from dali import fn

    @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        args = dict(path=data[0], index_path=data[1],
                    features={"label": dali.tfrecord.FixedLenFeature([1], dali.tfrecord.int64,
                                                                     0)})
        args.update(kwargs)
        return tuple(fn.readers.tfrecord(**args).values())

    with pytest.raises((RuntimeError, TypeError), match=message):
        pipe().build()


def test_string_tensors_are_rejected():
    import dali
    from dali import tfrecord as tfrec
    with pytest.raises(TypeError, match="tensors of strings are not supported"):
        dali.fn.readers.tfrecord(path=["a"], index_path=["a"],
                                 features={"s": tfrec.VarLenFeature(tfrec.string, "")})


def test_index_tool_writes_dalis_index(tmp_path, data):
    paths, indices = data
    out = tmp_path / "out.idx"
    assert tfrecord2idx.main([paths[0], str(out)]) == 0
    with open(indices[0]) as f:
        assert out.read_text() == f.read()
    truncated = tmp_path / "t.tfrecord"
    with open(paths[0], "rb") as f:
        truncated.write_bytes(f.read()[:-3])
    assert tfrecord2idx.main([str(truncated), str(tmp_path / "t.idx")]) == 1
    assert not (tmp_path / "t.idx").exists()


def _spans(record, names):
    spans, error = records.example_spans([np.frombuffer(record, np.uint8)], names)
    assert error is None
    return spans[0].tolist()


def test_example_parser_packed_and_unpacked():
    for packed in (True, False):
        rec = tfrecord([example({"a": [1, -2, 2**62], "b": [0.5, -1.0], "c": [b"x", b"yz"]},
                                packed)])
        raw = [np.frombuffer(rec, np.uint8)]
        (ka, sa, ea, _, _), (kb, sb, eb, _, _), (kc, sc, ec, fc, gc) = _spans(
            rec, [b"a", b"b", b"c"])
        assert (ka, kb, kc) == (3, 2, 1) and rec[fc:gc] == b"x"
        spans, _ = records.example_spans(raw, [b"a", b"b"])
        values, counts, error = records.numbers(raw, spans[:, 0], 3)
        assert error is None and values.tolist() == [1, -2, 2**62] and counts.tolist() == [3]
        values, counts, error = records.numbers(raw, spans[:, 1], 2)
        assert values.dtype == np.float32 and values.tolist() == [0.5, -1.0]
    assert _spans(tfrecord([example({"a": [1]})]), [b"b"]) == [[0, 0, 0, 0, 0]]


def test_example_features_takes_only_the_records_that_hold_the_features_as_declared():
    def outputs(examples, declared, packed=True):
        raw = [np.frombuffer(r, np.uint8) for r in
               (tfrecord([example(e, packed)]) for e in examples)]
        spans, _ = records.example_spans(raw, [b"a", b"b", b"c"])
        return records.example_features(raw, spans, declared)

    good = [{"a": [7, -2**40], "b": [0.5, 1.5, 2.5, -1.0], "c": [b"xy", b"z"]},
            {"a": [0, 3], "b": [1.0, 2.0, 3.0, 4.0], "c": [b""]}]
    for packed in (True, False):
        a, b, c = outputs(good, [(3, (2,)), (2, (2, 2)), (1, None)], packed)
        assert a.dtype == np.int64 and [x.tolist() for x in a.samples()] == \
            [[7, -2**40], [0, 3]]
        assert b.dtype == np.float32 and b.samples()[0].tolist() == [[0.5, 1.5], [2.5, -1.0]]
        assert [bytes(x) for x in c.samples()] == [b"xy", b""]
    a, b, c = outputs(good, [(3, None), (3, (4,)), (1, ())])       # var-len; another kind
    assert a is None and b is None and [bytes(x) for x in c.samples()] == [b"xy", b""]
    for declared in ([(3, (1,))], [(3, (3,))], [(2, (5,))], [(2, (3,))]):   # values != shape
        assert outputs(good, declared + [(1, None)] * 2)[0] is None
    missing = [good[0], {"b": [1.0] * 4, "c": []}]         # no "a"; "c" holds no value
    assert outputs(missing, [(3, (2,)), (2, (4,)), (1, None)])[::2] == [None, None]


def test_serialized_pipeline_keeps_the_features(data):
    import dali
    from dali import fn
    from dali import tfrecord as tfrec

    @dali.pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe():
        out = fn.readers.tfrecord(path=data[0], index_path=data[1], features=features(tfrec))
        return tuple(out.values())

    original = pipe()
    back = dali.Pipeline.deserialize(original.serialize())
    original.build()
    back.build()
    for a, b in zip(original.run(), back.run(), strict=True):
        for x, y in zip(a, b, strict=True):
            assert np.array(x).dtype == np.array(y).dtype
            np.testing.assert_array_equal(np.array(x), np.array(y))


# -- shuffle_after_epoch: the order of the files changes at every epoch --------------------------
@pytest.fixture(scope="module")
def five_files(tmp_path_factory):
    """5 TFRecord files of 1, 2, 3, 4, 5 records labelled 100 * file + record."""
    root = tmp_path_factory.mktemp("tfr5")
    paths, indices = [], []
    for k in range(5):
        paths.append(str(root / f"f{k}.tfrecord"))
        indices.append(str(root / f"f{k}.idx"))
        write_tfrecord(paths[-1], [example({"label": [100 * k + i]}) for i in range(k + 1)],
                       indices[-1])
    return paths, indices


def _labels(files, pkg="dali", iterations=15, batch_size=1, **kwargs):
    def feats(tfrec):
        return {"label": tfrec.FixedLenFeature([1], tfrec.int64, -1)}

    result, meta = read(*files, pkg=pkg, iterations=iterations, batch_size=batch_size,
                        feats=feats, shuffle_after_epoch=True, **kwargs)
    return [int(x[0]) for outs, _ in result for x in outs[0]], meta


def test_shuffle_after_epoch_reads_whole_files_in_a_new_order(five_files):
    """Real DALI 2.4's file order over 5 epochs (recorded); each file's records in order."""
    got, meta = _labels(five_files, iterations=75)
    orders = [[4, 2, 1, 0, 3], [2, 1, 0, 3, 4], [3, 2, 4, 1, 0], [0, 3, 2, 1, 4],
              [4, 3, 1, 0, 2]]
    assert got == [100 * k + i for order in orders for k in order for i in range(k + 1)]
    assert meta["stick_to_shard"] == 1


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    dict(num_shards=2, shard_id=1),
    dict(num_shards=2, shard_id=0, pad_last_batch=True, batch_size=4),
    dict(random_shuffle=True, initial_fill=3, batch_size=2),
    dict(shuffle_after_epoch_seed=-7, num_shards=3, shard_id=2, batch_size=3),
    dict(shuffle_after_epoch_seed=2**40, num_shards=4, shard_id=3, pad_last_batch=True)])
def test_shuffle_after_epoch_matches_the_oracle(five_files, kwargs):
    pytest.importorskip("nvidia.dali")
    assert _labels(five_files, iterations=24, **kwargs) == \
        _labels(five_files, pkg="nvidia.dali", iterations=24, **kwargs)


def test_shuffle_after_epoch_excludes_stick_to_shard(five_files):
    with pytest.raises(RuntimeError, match="shuffle_after_epoch and stick_to_shard cannot be "
                                           "both true"):
        _labels(five_files, stick_to_shard=True)


def test_shuffle_after_epoch_resumes_from_a_checkpoint(five_files):
    """A reader restored from a checkpoint taken mid-epoch goes on with the same file orders
    (the epochs' shuffles are replayed, not stored)."""
    from dali import fn, pipeline_def
    from dali import tfrecord as tfrec

    def pipe(checkpoint=None):
        @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=5,
                      enable_checkpointing=True)
        def p():
            return fn.readers.tfrecord(
                path=five_files[0], index_path=five_files[1], shuffle_after_epoch=True,
                features={"label": tfrec.FixedLenFeature([1], tfrec.int64, -1)},
                num_shards=2, shard_id=1)["label"]

        built = p(checkpoint=checkpoint) if checkpoint is not None else p()
        built.build()
        return built

    def labels(p, n):
        return [[int(x[0]) for x in p.run()[0].as_array()] for _ in range(n)]

    whole = pipe()
    expected = labels(whole, 12)
    first = pipe()
    assert labels(first, 5) == expected[:5]
    assert labels(pipe(first.checkpoint()), 7) == expected[5:]
