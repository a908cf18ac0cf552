"""fn.readers.webdataset: grouping of tar members into samples, extension sets, dtypes, missing
components, index files (and dali.tools.wds2idx), order over shards, errors."""

from __future__ import annotations

import importlib
import io
import pathlib
import tarfile
import warnings

import numpy as np
import pytest

from dali import types
from dali.ops.readers import _tar
from dali.tools import wds2idx


def _add(t, name, data=b"", kind=tarfile.REGTYPE):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    t.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def write_tar(path, members, fmt=tarfile.GNU_FORMAT):
    with tarfile.open(path, "w", format=fmt) as t:
        for m in members:
            _add(t, *m) if isinstance(m, tuple) else _add(t, m, m.encode())
    return str(path)


MIXED = [("s0.jpg", b"s0jpg"), ("s0.cls", b"1234"), ("s1.JPG", b"s1JPG"), ("s1.cls", b"5678"),
         ("dir", b"", tarfile.DIRTYPE), ("dir/s2.jpg", b"s2jpg!"), (".hidden.jpg", b"hid"),
         ("noext", b"noextdata"), ("s3.a.b", b"s3ab"), ("s3.jpg", b"s3jpgx"),
         ("s0.png", b"again"), ("x" * 120 + ".jpg", b"long")]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    return write_tar(tmp_path_factory.mktemp("wds") / "mixed.tar", MIXED)


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """5 archives of 3, 2, 4, 1, 2 samples: `<archive><sample>.txt` holding "ks"."""
    root = tmp_path_factory.mktemp("shards")
    return [write_tar(root / f"t{k}.tar", [(f"s{i}.txt", f"{k}{i}".encode())
                                           for i in range(c)])
            for k, c in enumerate([3, 2, 4, 1, 2])]


def read(pkg="dali", iterations=3, batch_size=3, pipeline_seed=7, quiet=True, **kwargs):
    """Per iteration, per output: the samples' bytes, and each output's source infos (the
    warning about several components matching one output silenced unless not `quiet`)."""
    mod = importlib.import_module(pkg)
    fns = importlib.import_module(pkg + ".fn")

    @mod.pipeline_def(batch_size=batch_size, num_threads=1, device_id=None,
                      seed=pipeline_seed)
    def pipe():
        outs = fns.readers.webdataset(name="R", **kwargs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        return (*outs, *[o.source_info() for o in outs])

    with warnings.catch_warnings():
        if quiet:
            warnings.filterwarnings("ignore", "Multiple components matching output")
        p = pipe()
        p.build()
    result = []
    for _ in range(iterations):
        out = p.run()
        result.append([[np.array(x[i]) for i in range(len(x))] for x in out])
    return result, p.reader_meta("R")


def as_bytes(result):
    return [[[a.tobytes() for a in out] for out in it] for it in result]


def test_grouping_extensions_and_source_info(mixed):
    result, meta = read(paths=mixed, ext=["jpg;png", "cls", "a.b;noext"])
    assert meta["epoch_size"] == 7
    first = as_bytes(result)[0]
    assert first == [[b"s0jpg", b"", b"s2jpg!"], [b"1234", b"5678", b""], [b"", b"", b""],
                     [f"{mixed}:512:s0.jpg".encode(), b"", f"{mixed}:5120:dir/s2.jpg".encode()],
                     [f"{mixed}:1536:s0.cls".encode(), f"{mixed}:3584:s1.cls".encode(), b""],
                     [b"", b"", b""]]
    second = as_bytes(result)[1]
    # a name without a dot is its own extension; "s0.png" after "s3" is a new sample
    assert second[:3] == [[b"", b"s3jpgx", b"again"], [b"", b"", b""],
                          [b"noextdata", b"s3ab", b""]]
    assert all(a.dtype == np.uint8 and a.ndim == 1 for it in result for out in it[:3]
               for a in out)


def test_case_insensitive_extensions(mixed):
    result, _ = read(paths=mixed, ext=["JPG;png", "cls"], case_sensitive_extensions=False,
                     iterations=1)
    assert as_bytes(result)[0][0] == [b"s0jpg", b"s1JPG", b"s2jpg!"]
    result, _ = read(paths=mixed, ext=["JPG"], iterations=1)
    assert as_bytes(result)[0][0] == [b"", b"s1JPG", b""]


def test_missing_component_skip_and_error(mixed):
    result, meta = read(paths=mixed, ext=["jpg", "cls"], missing_component_behavior="SKIP",
                        iterations=1)
    assert meta["epoch_size"] == 1
    assert as_bytes(result)[0][:2] == [[b"s0jpg"] * 3, [b"1234"] * 3]
    # DALI counts matching components, not filled outputs: one file filling two outputs is
    # "missing" one
    with pytest.raises(RuntimeError, match="The number of input samples: 0"):
        read(paths=mixed, ext=["jpg", "jpg"], missing_component_behavior="skip")
    with pytest.raises(RuntimeError, match=f'Underful sample detected at tar file at "{mixed}"'):
        read(paths=mixed, ext=["jpg", "cls"], missing_component_behavior="error")


def test_one_component_fills_several_outputs(mixed):
    result, _ = read(paths=mixed, ext=["jpg", "jpg;cls"], iterations=1)
    assert as_bytes(result)[0][:2] == [[b"s0jpg", b"", b"s2jpg!"], [b"s0jpg", b"5678", b"s2jpg!"]]


def test_dtypes(tmp_path):
    rng = np.random.default_rng(3)
    vals = [rng.integers(-1000, 1000, n).astype(np.int32) for n in (3, 1, 5, 0)]
    floats = [rng.standard_normal(n).astype(np.float16) for n in (2, 4, 1, 3)]
    path = write_tar(tmp_path / "d.tar", [m for i in range(4) for m in
                                          ((f"{i}.i32", vals[i].tobytes()),
                                           (f"{i}.f16", floats[i].tobytes()))])
    result, _ = read(paths=[path], ext=["i32", "f16"], dtypes=[types.INT32, types.FLOAT16],
                     batch_size=4, iterations=1)
    ints, halfs = result[0][:2]
    for got, want in zip(ints + halfs, vals + floats, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_long_names_gnu_and_pax(tmp_path):
    name = "d" * 90 + "/" + "n" * 80
    for fmt in (tarfile.GNU_FORMAT, tarfile.PAX_FORMAT, tarfile.USTAR_FORMAT):
        path = write_tar(tmp_path / f"{fmt}.tar", [(name + ".bin", b"abc"),
                                                    (name + ".txt", b"t"), ("\u00e9.bin", b"e")]
                         if fmt != tarfile.USTAR_FORMAT else [(name + ".bin", b"abc")])
        names, offsets, sizes = _tar.members(path)
        with tarfile.open(path) as t:
            want = [(m.name, m.offset_data, m.size) for m in t.getmembers()]
        assert list(zip(names, offsets.tolist(), sizes.tolist(), strict=True)) == want


def test_wds2idx_and_index_paths(mixed, tmp_path):
    idx = tmp_path / "mixed.idx"
    assert wds2idx.main([mixed, str(idx)]) == 0
    lines = idx.read_text().splitlines()
    with tarfile.open(mixed) as t:
        files = [m for m in t.getmembers() if m.isfile()]
    assert lines[0] == "v1.2 7"
    assert lines[1] == f"jpg {files[0].offset_data} 5 s0.jpg cls {files[1].offset_data} 4 s0.cls"
    assert lines[4] == f"noext {files[6].offset_data} 9 noext"
    assert len(lines) == 8
    kwargs = {"paths": mixed, "ext": ["jpg;png", "cls", "a.b;noext"], "iterations": 3}
    scanned, _ = read(**kwargs)
    indexed, _ = read(index_paths=str(idx), **kwargs)
    assert as_bytes(scanned) == as_bytes(indexed)
    assert wds2idx.default_index_path("/a/b/data.x.tar") == "/a/b/data.idx"


def test_index_v1_1_has_no_file_names(mixed, tmp_path):
    idx = tmp_path / "v11.idx"
    idx.write_text("v1.1 2\njpg 512 5 cls 1536 4\ncls 3584 4\n")
    result, meta = read(paths=mixed, index_paths=[str(idx)], ext=["jpg", "cls"], batch_size=2,
                        iterations=1)
    assert meta["epoch_size"] == 2
    assert as_bytes(result)[0] == [[b"s0jpg", b""], [b"1234", b"5678"],
                                   [f"{mixed}:512:".encode(), b""],
                                   [f"{mixed}:1536:".encode(), f"{mixed}:3584:".encode()]]


@pytest.mark.parametrize("text, line, message", [
    ("", 0, "no version signature found"),
    ("v1.0 1\njpg 512 5\n", 0, r"Unsupported version of the index file \(v1.0\)."),
    ("v1.1\n", 0, "no sample count found"),
    ("v1.1 0\n", 0, "sample count must be positive"),
    ("v1.1 3\njpg 512 5\ncls 1536 4\n", 3, "no extensions provided for the sample"),
    ("v1.1 1\njpg 512 5 cls 1536\n", 1, "Could not find all necessary component parameters "
                                        r"\(offset or size\)"),
    ("v1.2 1\njpg 512 5\n", 1, "Could not find all necessary component parameters "
                               r"\(offset, size or filename\)"),
    ("v1.1 1\njpg 513 5\n", 1, "tar offset is not a multiple of tar block size"),
])
def test_malformed_index(mixed, tmp_path, text, line, message):
    idx = tmp_path / "bad.idx"
    idx.write_text(text)
    with pytest.raises(RuntimeError, match=f'Malformed index file at "{idx}" line {line} - '
                                           f"{message}"):
        read(paths=mixed, index_paths=[str(idx)], ext="jpg")


def test_index_offset_outside_the_archive(mixed, tmp_path):
    idx = tmp_path / "far.idx"
    idx.write_text("v1.1 1\njpg 1048576 5\n")
    with pytest.raises(RuntimeError, match=f'Malformed index file at "{idx}" line 1 - offset is '
                                           "outside of the archive file"):
        read(paths=mixed, index_paths=[str(idx)], ext="jpg", batch_size=1)


@pytest.mark.parametrize("kwargs, message", [
    ({"dtypes": [types.BOOL]}, "Unsupported output dtype bool. Supported types are: uint8, "
                               "uint16, uint32, uint64, int8, int16, int32, int64, float16, "
                               "float, double"),
    ({"ext": ["jpg", "cls"], "dtypes": [types.INT32]},
     "Number of extensions does not match the number of provided types"),
    ({"dtypes": [types.INT32]}, "component size and dtype incompatible"),
    ({"missing_component_behavior": "bad"},
     "Invalid value for missing_component_behavior 'bad' possible values are: skip, error, "
     "empty"),
    ({"index_paths": ["a.idx", "b.idx"]}, "The number of index files, if any, must match"),
])
def test_argument_errors(mixed, kwargs, message):
    kwargs = {"paths": mixed, "ext": "jpg", **kwargs}
    with pytest.raises(RuntimeError, match="readers.webdataset") as e:
        read(**kwargs)
    assert message in str(e.value)


def test_corrupt_and_truncated_archives(mixed, tmp_path):
    data = bytearray(pathlib.Path(mixed).read_bytes())
    bad = tmp_path / "bad.tar"
    corrupt = bytearray(data)
    corrupt[1024 + 10] ^= 0xFF               # the name of the second header
    bad.write_bytes(corrupt)
    with pytest.raises(RuntimeError, match=f"corrupted tar file {bad}: bad header checksum at "
                                           "byte 1024"):
        read(paths=str(bad), ext="jpg")
    bad.write_bytes(data[:1024 + 512 + 2])   # the second member's data cut short
    with pytest.raises(RuntimeError, match=f"truncated tar file {bad}: the entry at byte 1024 "
                                           "needs 4 bytes"):
        read(paths=str(bad), ext="jpg")
    bad.write_bytes(data[:1024 + 100])
    with pytest.raises(RuntimeError, match="a header at byte 1024 is cut short"):
        read(paths=str(bad), ext="jpg")
    bad.write_bytes(b"not a tar file at all" * 40)
    with pytest.raises(RuntimeError, match="corrupted tar file"):
        read(paths=str(bad), ext="jpg")
    with pytest.raises(RuntimeError, match="cannot open .*missing.tar"):
        read(paths=str(tmp_path / "missing.tar"), ext="jpg")


def test_archive_truncated_after_indexing(mixed, tmp_path):
    short = tmp_path / "short.tar"
    short.write_bytes(pathlib.Path(mixed).read_bytes()[:514])     # s0.jpg's data is cut short
    idx = tmp_path / "short.idx"
    idx.write_text("v1.1 1\njpg 512 5\n")
    with pytest.raises(RuntimeError, match=f"Error reading from a file {short}: the archive "
                                           "ends 2 bytes into a 5-byte component"):
        read(paths=str(short), index_paths=str(idx), ext="jpg", batch_size=1)


def test_hidden_first_member_and_empty_archive_give_an_empty_sample(tmp_path):
    path = write_tar(tmp_path / "h.tar", [(".h.txt", b"h"), ("a.txt", b"a")])
    result, meta = read(paths=path, ext="txt", batch_size=2, iterations=1)
    assert meta["epoch_size"] == 2
    assert as_bytes(result)[0][0] == [b"", b"a"]
    empty = write_tar(tmp_path / "e.tar", [("d", b"", tarfile.DIRTYPE)])
    result, meta = read(paths=empty, ext="txt", batch_size=1, iterations=1)
    assert meta["epoch_size"] == 1 and as_bytes(result)[0][0] == [b""]


def test_duplicate_component_warns_once(tmp_path):
    path = write_tar(tmp_path / "dup.tar", [("a.jpg", b"1"), ("a.png", b"2"), ("b.jpg", b"3"),
                                            ("b.png", b"4")])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result, _ = read(paths=path, ext="jpg;png", batch_size=2, iterations=1, quiet=False)
    assert as_bytes(result)[0][0] == [b"1", b"3"]
    assert [str(w.message) for w in caught
            if "Multiple" in str(w.message)] == [f'Multiple components matching output 0 at '
                                                  f'tar file at "{path}".']


def order(pkg, shards, **kwargs):
    result, meta = read(pkg, paths=shards, ext="txt", batch_size=4, iterations=8, pipeline_seed=3,
                        **kwargs)
    return " | ".join(" ".join(a.tobytes().decode() for a in it[0]) for it in result), meta


# Order real DALI 2.4 gives on the 5 archives above (batch 4, pipeline seed 3).
GOLDEN = [
    ({}, "00 01 02 10 | 11 20 21 22 | 23 30 40 41 | 00 01 02 10 | 11 20 21 22 | 23 30 40 41 | "
         "00 01 02 10 | 11 20 21 22"),
    ({"num_shards": 3, "shard_id": 1, "pad_last_batch": True},
     "11 20 21 22 | 23 30 40 41 | 00 01 02 10 | 11 20 21 22 | 23 30 40 41 | 00 01 02 10 | "
     "11 20 21 22 | 23 30 40 41"),
    ({"random_shuffle": True, "initial_fill": 5},
     "11 01 10 22 | 23 21 02 41 | 40 20 00 30 | 01 02 20 22 | 10 00 30 40 | 21 23 11 41 | "
     "01 11 10 21 | 00 02 23 22"),
]


@pytest.mark.parametrize("kwargs, want", GOLDEN)
def test_order_golden(shards, kwargs, want):
    assert order("dali", shards, **kwargs)[0] == want


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {}, {"num_shards": 2, "shard_id": 1}, {"num_shards": 3, "shard_id": 2},
    {"num_shards": 4, "shard_id": 3, "pad_last_batch": True},
    {"num_shards": 3, "shard_id": 1, "stick_to_shard": True},
    {"num_shards": 3, "shard_id": 0, "stick_to_shard": True, "pad_last_batch": True},
    {"random_shuffle": True}, {"random_shuffle": True, "initial_fill": 3, "seed": 11},
    {"random_shuffle": True, "initial_fill": 6, "lazy_init": True},
    {"random_shuffle": True, "initial_fill": 4, "num_shards": 2, "shard_id": 1,
     "pad_last_batch": True},
])
def test_order_matches_dali(shards, kwargs):
    pytest.importorskip("nvidia.dali")
    assert order("dali", shards, **kwargs) == order("nvidia.dali", shards, **kwargs)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"ext": ["jpg;png", "cls", "a.b;noext"]},
    {"ext": ["JPG;png", "cls"], "case_sensitive_extensions": False},
    {"ext": ["jpg", "jpg;cls"]},
    {"ext": ["jpg", "cls"], "missing_component_behavior": "skip"},
    {"ext": ["jpg;cls", "cls"], "missing_component_behavior": "skip"},
])
def test_outputs_match_dali(mixed, kwargs):
    pytest.importorskip("nvidia.dali")
    mine, meta = read(paths=mixed, **kwargs)
    theirs, their_meta = read("nvidia.dali", paths=mixed, **kwargs)
    assert as_bytes(mine) == as_bytes(theirs) and meta == their_meta


@pytest.mark.oracle
def test_empty_first_sample_matches_dali(tmp_path):
    pytest.importorskip("nvidia.dali")
    path = write_tar(tmp_path / "h.tar", [(".h.txt", b"h"), ("a.txt", b"a"), ("b.txt", b"b")])
    kwargs = {"paths": path, "ext": "txt", "batch_size": 3, "iterations": 2}
    assert as_bytes(read(**kwargs)[0]) == as_bytes(read("nvidia.dali", **kwargs)[0])



# -- shuffle_after_epoch: the order of the archives changes at every epoch -----------------------
def _samples(shards, pkg="dali", iterations=12, batch_size=1, **kwargs):
    result, meta = read(pkg=pkg, iterations=iterations, batch_size=batch_size,
                        paths=shards, ext=["txt"], shuffle_after_epoch=True, **kwargs)
    return [x.tobytes().decode() for it in result for x in it[0]], meta


def test_shuffle_after_epoch_reads_whole_archives_in_a_new_order(shards):
    """Archives of 3, 2, 4, 1, 2 samples; the first epochs' archive orders of real DALI 2.4
    (recorded with readers.tfrecord, which orders its files alike)."""
    got, meta = _samples(shards, iterations=36)
    counts = [3, 2, 4, 1, 2]
    orders = [[4, 2, 1, 0, 3], [2, 1, 0, 3, 4], [3, 2, 4, 1, 0]]
    assert got == [f"{k}{i}" for order in orders for k in order for i in range(counts[k])]
    assert meta["stick_to_shard"] == 1


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    dict(num_shards=2, shard_id=1),
    dict(num_shards=3, shard_id=0, pad_last_batch=True, batch_size=4),
    dict(random_shuffle=True, initial_fill=3, batch_size=2, shuffle_after_epoch_seed=9)])
def test_shuffle_after_epoch_matches_the_oracle(shards, kwargs):
    pytest.importorskip("nvidia.dali")
    ours, meta = _samples(shards, iterations=20, **kwargs)
    theirs, real_meta = _samples(shards, pkg="nvidia.dali", iterations=20, **kwargs)
    assert (ours, meta) == (theirs, real_meta)


def test_shuffle_after_epoch_excludes_stick_to_shard(shards):
    with pytest.raises(RuntimeError, match="shuffle_after_epoch and stick_to_shard cannot be "
                                           "both true"):
        _samples(shards, stick_to_shard=True)


def test_on_error_skip_drops_underful_and_truncated_samples(tmp_path):
    whole = write_tar(tmp_path / "a.tar", [m for i in range(5) for m in
                                           [(f"a{i}.jpg", b"A%d" % i), (f"a{i}.cls", b"%d" % i)]
                                           if m[0] != "a2.cls"])           # a2: no cls
    cut = tmp_path / "b.tar"
    write_tar(cut, [(f"b{i}.{e}", b"B%d" % i * 300) for i in range(3) for e in ("jpg", "cls")])
    members = _tar.members(str(cut))
    cut.write_bytes(cut.read_bytes()[:members[1][-1] + 100])            # b2.cls cut short
    kwargs = dict(paths=[whole, str(cut)], ext=["jpg", "cls"], batch_size=3, iterations=3,
                  missing_component_behavior="error")
    with pytest.warns(RuntimeWarning, match=r"2 sample\(s\) that could not be read"):
        result, meta = read(on_error="skip", **kwargs)
    jpgs, clss, jpg_infos = [[x for it in as_bytes(result) for x in it[k]] for k in range(3)]
    good = [("a", i) for i in (0, 1, 3, 4)] + [("b", 0), ("b", 1)]
    good += good[:3]                     # the epoch, then the next one's first batch
    assert jpgs == [(s.upper() + str(i)).encode() * (300 if s == "b" else 1) for s, i in good]
    assert clss == [b"%d" % i if s == "a" else b"B%d" % i * 300 for s, i in good]
    assert [x.decode().rsplit(":", 1)[1] for x in jpg_infos] == [f"{s}{i}.jpg" for s, i in good]
    skipped = meta["skipped"]
    assert [s["sample"] for s in skipped][:2] == [f"{whole}:4608:a2.jpg", f"{cut}:6656:b2.jpg"]
    assert f'Underful sample detected at tar file at "{whole}"' in skipped[0]["reason"]
    assert "the archive ends 100 bytes into a 600-byte component" in skipped[1]["reason"]
    with pytest.raises(RuntimeError, match="Underful sample detected"):
        read(**kwargs)
    with pytest.raises(RuntimeError, match=f"truncated tar file {cut}: the entry at byte"):
        read(**{**kwargs, "paths": str(cut)})


def test_on_error_skip_reads_an_archive_cut_inside_a_header_up_to_the_cut(tmp_path):
    cut = tmp_path / "b.tar"
    write_tar(cut, [(f"b{i}.{e}", b"B%d" % i * 50) for i in range(4) for e in ("jpg", "cls")])
    cut.write_bytes(cut.read_bytes()[:5 * 1024 + 100])         # inside b2.cls's header
    whole = write_tar(tmp_path / "a.tar", [(f"a{i}.{e}", b"A%d" % i) for i in range(3)
                                           for e in ("jpg", "cls")])
    kwargs = dict(paths=[str(cut), whole], ext=["jpg", "cls"], batch_size=3, iterations=4)
    reason = f"truncated tar file {cut}: a header at byte 5120 is cut short"
    with pytest.warns(RuntimeWarning, match=f"{cut} from byte 5120 was skipped: {reason}"):
        result, meta = read(on_error="skip", **kwargs)
    jpgs, clss = [[x for it in as_bytes(result) for x in it[k]] for k in range(2)]
    assert jpgs == [b"B0" * 50, b"B1" * 50, b"B2" * 50, b"A0", b"A1", b"A2"] * 2 \
        and meta["epoch_size"] == 6
    assert clss == [b"B0" * 50, b"B1" * 50, b"", b"A0", b"A1", b"A2"] * 2   # b2.cls: cut
    assert meta["skipped"] == [{"sample": f"{cut} from byte 5120", "reason": reason}]
    with pytest.raises(RuntimeError, match=reason):
        read(**kwargs)
    cut.write_bytes(cut.read_bytes()[:100])                   # nothing before the cut
    with pytest.warns(RuntimeWarning, match=f"{cut} from byte 0 was skipped"):
        result, meta = read(on_error="skip", **kwargs)
    assert meta["epoch_size"] == 3
    assert [x for it in as_bytes(result) for x in it[0]] == [b"A0", b"A1", b"A2"] * 4


def _corrupt(path, at, kind):
    """Corrupt the tar header block at byte `at` of `path` in place: "garbage" fills it with
    random bytes (a bad checksum), "size" writes a size field that does not parse and mends
    the checksum."""
    data = bytearray(pathlib.Path(path).read_bytes())
    if kind == "garbage":
        data[at:at + 512] = np.random.default_rng(5).integers(1, 256, 512, np.uint8).tobytes()
    else:
        data[at + 124:at + 136] = b"garbage!\0\0\0\0"
        data[at + 148:at + 156] = b" " * 8
        data[at + 148:at + 156] = b"%06o\0 " % sum(data[at:at + 512])
    pathlib.Path(path).write_bytes(bytes(data))


def _four_samples(path):
    """An archive of samples b0..b3 (jpg, cls: 50 bytes each), member k's header at k * 1024."""
    return write_tar(path, [(f"b{i}.{e}", b"B%d" % i * 25 + e.encode())
                            for i in range(4) for e in ("jpg", "cls")])


@pytest.mark.parametrize("kind, reason", [("garbage", "bad header checksum"),
                                          ("size", "bad size field")])
def test_on_error_skip_reads_an_archive_up_to_a_corrupted_header(tmp_path, kind, reason):
    bad = _four_samples(tmp_path / "b.tar")
    _corrupt(bad, 6 * 1024, kind)                             # b3.jpg's header
    whole = write_tar(tmp_path / "a.tar", [(f"a{i}.{e}", b"A%d" % i) for i in range(3)
                                           for e in ("jpg", "cls")])
    kwargs = dict(paths=[bad, whole], ext=["jpg", "cls"], batch_size=3, iterations=4)
    reason = f"corrupted tar file {bad}: {reason} at byte 6144"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result, meta = read(on_error="skip", **kwargs)          # two epochs
    assert [str(w.message) for w in caught] == [
        f"dali.fn.readers.webdataset: {bad} from byte 6144 was skipped: {reason} (see "
        "reader_meta()['skipped'])"]
    jpgs, clss, infos = [[x for it in as_bytes(result) for x in it[k]] for k in range(3)]
    assert jpgs == [b"B0" * 25 + b"jpg", b"B1" * 25 + b"jpg", b"B2" * 25 + b"jpg",
                    b"A0", b"A1", b"A2"] * 2 and meta["epoch_size"] == 6
    assert clss == [b"B0" * 25 + b"cls", b"B1" * 25 + b"cls", b"B2" * 25 + b"cls",
                    b"A0", b"A1", b"A2"] * 2
    assert infos[:3] == [f"{bad}:512:b0.jpg".encode(), f"{bad}:2560:b1.jpg".encode(),
                         f"{bad}:4608:b2.jpg".encode()]
    assert meta["skipped"] == [{"sample": f"{bad} from byte 6144", "reason": reason}]
    with pytest.raises(RuntimeError, match="readers.webdataset") as e:
        read(**kwargs)
    assert reason in str(e.value)


def test_on_error_skip_passes_over_an_archive_corrupted_in_its_first_header(tmp_path):
    bad = _four_samples(tmp_path / "b.tar")
    _corrupt(bad, 0, "garbage")
    whole = write_tar(tmp_path / "a.tar", [(f"a{i}.jpg", b"A%d" % i) for i in range(3)])
    reason = f"corrupted tar file {bad}: bad header checksum at byte 0"
    with pytest.warns(RuntimeWarning, match=f"{bad} from byte 0 was skipped: {reason}"):
        result, meta = read(paths=[whole, bad], ext="jpg", on_error="skip", batch_size=2,
                            iterations=3)
    assert [x for it in as_bytes(result) for x in it[0]] == [b"A0", b"A1", b"A2"] * 2
    assert meta["epoch_size"] == 3
    assert meta["skipped"] == [{"sample": f"{bad} from byte 0", "reason": reason}]
    with pytest.warns(RuntimeWarning, match=f"{bad} from byte 0 was skipped"), \
            pytest.raises(RuntimeError, match="The number of input samples: 0"):
        read(paths=bad, ext="jpg", on_error="skip")          # nothing left to read


def test_corrupted_headers_are_not_read_through_an_index(tmp_path):
    """The index gives the components' bytes: the headers around them are never read, with
    either `on_error` (as in DALI); wds2idx refuses the corrupted archive."""
    bad = _four_samples(tmp_path / "b.tar")
    idx = tmp_path / "b.idx"
    assert wds2idx.main([bad, str(idx)]) == 0
    _corrupt(bad, 5 * 1024, "garbage")                        # b2.cls's header
    _corrupt(bad, 0, "size")                                  # b0.jpg's header
    kwargs = dict(paths=bad, index_paths=str(idx), ext=["jpg", "cls"], batch_size=4,
                  iterations=2)
    want = [[b"B%d" % i * 25 + e for i in range(4)] for e in (b"jpg", b"cls")]
    for on_error in ("raise", "skip"):
        result, meta = read(on_error=on_error, **kwargs)
        assert [it[:2] for it in as_bytes(result)] == [want] * 2
        assert meta.get("skipped", []) == []
    assert wds2idx.main([bad, str(tmp_path / "again.idx")]) == 1
    assert not (tmp_path / "again.idx").exists()


@pytest.mark.oracle
def test_corrupted_headers_read_through_an_index_match_dali(tmp_path):
    pytest.importorskip("nvidia.dali")
    bad = _four_samples(tmp_path / "b.tar")
    idx = tmp_path / "b.idx"
    assert wds2idx.main([bad, str(idx)]) == 0
    _corrupt(bad, 5 * 1024, "garbage")
    kwargs = dict(paths=bad, index_paths=str(idx), ext=["jpg", "cls"], batch_size=3,
                  iterations=3)
    mine, _ = read(**kwargs)
    theirs, _ = read("nvidia.dali", **kwargs)
    assert [it[:2] for it in as_bytes(mine)] == [it[:2] for it in as_bytes(theirs)]


def test_members_to_cut(tmp_path):
    path = tmp_path / "c.tar"
    data = pathlib.Path(write_tar(path, [("a.txt", b"a" * 600), ("x" * 120 + ".txt", b"l"),
                                         ("c.txt", b"c")])).read_bytes()
    long_at = 512 + 1024                      # the GNU long name entry of the second file
    for size, names, cut in [
            (len(data), ["a.txt", "x" * 120 + ".txt", "c.txt"], None),
            (512 + 300, ["a.txt"], None),                       # a.txt's data cut: listed
            (long_at + 200, ["a.txt"], (long_at, "a header at byte 1536 is cut short")),
            (long_at + 600, ["a.txt"], (long_at, "the entry at byte 1536 needs 125 bytes"))]:
        path.write_bytes(data[:size])
        got, offsets, sizes, where = _tar.members_to_cut(str(path))
        assert got == names and offsets.tolist()[:1] == [512] and sizes.tolist()[:1] == [600]
        assert where == cut if cut is None else (where[0] == cut[0] and cut[1] in where[1])
        if cut is not None or size < len(data):
            with pytest.raises(_tar.TarError, match="truncated tar file"):
                _tar.members(str(path))


def test_members_to_cut_stops_at_a_corrupted_header(tmp_path):
    path = tmp_path / "p.tar"
    data = pathlib.Path(write_tar(path, [("a.txt", b"a"), ("\u00e9" * 3 + ".txt", b"l"),
                                         ("c.txt", b"c")], tarfile.PAX_FORMAT)).read_bytes()
    # a.txt at 0; the pax header of the second file at 1024 (its records at 1536), the file's
    # header at 2048; c.txt's header at 3072
    for at, new, names, cut, message in [
            (1536, b"x9", ["a.txt"], 1024, "bad pax header at byte 1536"),
            (3072 + 100, b"\xff", ["a.txt", "\u00e9" * 3 + ".txt"], 3072,
             "bad header checksum at byte 3072")]:
        path.write_bytes(data[:at] + new + data[at + len(new):])
        got, offsets, sizes, where = _tar.members_to_cut(str(path))
        assert got == names and offsets.tolist() == [512, 2560][:len(names)]
        assert sizes.tolist() == [1] * len(names)
        assert where == (cut, f"corrupted tar file {path}: {message}")
        with pytest.raises(_tar.TarError, match=f"corrupted tar file {path}: {message}"):
            _tar.members(str(path))
