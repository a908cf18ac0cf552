"""fn.readers.file: listing, order (DALI's shuffle buffer, shards, padding), outputs, errors."""

from __future__ import annotations

import importlib
import os
import re

import numpy as np
import pytest

import dali
from dali import fn, pipeline_def
from dali.pipeline import experimental

FILES = {"a": ["a0.jpg", "a1.jpg", "a2.jpg", "a3.jpg"],
         "b": ["b0.jpg", "b1.jpg", "b2.jpg", "b3.jpg", "b4.jpg"],
         "c": ["c0.JPG", "c1.JPG"]}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """11 files in 3 classes (two with upper-case extensions), plus files the scan ignores."""
    root = tmp_path_factory.mktemp("tree")
    for cls, names in FILES.items():
        (root / cls).mkdir()
        for n in names:
            (root / cls / n).write_bytes(n.split(".")[0].encode())
    (root / "top.jpg").write_bytes(b"top")               # directly in file_root: ignored
    (root / "a" / "notes.txt").write_bytes(b"txt")        # no filter matches
    (root / "a" / "sub").mkdir()                           # nested: not scanned
    (root / "a" / "sub" / "as0.jpg").write_bytes(b"as0")
    (root / "list.txt").write_text("a/a0.jpg 3\nb/b1.jpg   7\n\nc/c0.JPG 1\n")
    return str(root)


def read(root, iterations=6, batch_size=4, pipeline_seed=7, pkg="dali", num_threads=1,
         **kwargs):
    """Per iteration: 'name name ...' of the batch; plus labels, source infos and meta."""
    mod = importlib.import_module(pkg)
    fns = importlib.import_module(pkg + ".fn")
    kwargs.setdefault("file_root", root)

    @mod.pipeline_def(batch_size=batch_size, num_threads=num_threads, device_id=None,
                      seed=pipeline_seed)
    def pipe():
        data, label = fns.readers.file(name="R", **kwargs)
        return data, label, data.source_info()

    p = pipe()
    p.build()
    names, labels, infos = [], [], []
    for _ in range(iterations):
        d, lbl, si = p.run()
        names.append(" ".join(bytes(np.array(d[i])).decode() for i in range(len(d))))
        labels.append([int(np.array(lbl[i])[0]) for i in range(len(lbl))])
        infos.append([bytes(np.array(si[i])).decode() for i in range(len(si))])
    return names, labels, infos, p.reader_meta("R")


# Sample order real DALI 2.4 gives on this tree (batch 4, pipeline seed 7 unless given).
GOLDEN = [
    ({}, "a0 a1 a2 a3 | b0 b1 b2 b3 | b4 c0 c1 a0 | a1 a2 a3 b0 | b1 b2 b3 b4 | c0 c1 a0 a1"),
    ({"random_shuffle": True, "initial_fill": 1},
     "c1 a0 a2 b0 | b3 a1 b2 b1 | a3 c0 b4 c1 | a0 a2 b0 b3 | a1 b2 b1 a3 | c0 b4 c1 a0"),
    ({"random_shuffle": True, "seed": 5},
     "b0 b1 b3 a0 | c1 b4 b2 a1 | c0 a3 a2 b4 | a0 a3 b1 c0 | b2 a1 b0 c1 | b3 a2 c0 a2"),
    ({"random_shuffle": True, "pipeline_seed": 5},
     "c0 a1 b4 b3 | b1 a0 c1 a3 | b0 b2 a2 a2 | c0 b4 b3 b1 | c1 a0 a3 b0 | a1 b2 b1 b0"),
    ({"num_shards": 3, "shard_id": 1},
     "a3 b0 b1 b2 | b3 b4 c0 c1 | a0 a1 a2 a3 | b0 b1 b2 b3 | b4 c0 c1 a0 | a1 a2 a3 b0"),
    ({"num_shards": 3, "shard_id": 1, "stick_to_shard": True},
     "a3 b0 b1 b2 | a3 b0 b1 b2 | a3 b0 b1 b2 | a3 b0 b1 b2 | a3 b0 b1 b2 | a3 b0 b1 b2"),
    ({"num_shards": 3, "shard_id": 2, "pad_last_batch": True},
     "b3 b4 c0 c1 | a0 a1 a2 a2 | a3 b0 b1 b2 | b3 b4 c0 c1 | a0 a1 a2 a2 | a3 b0 b1 b2"),
    ({"num_shards": 2, "shard_id": 0, "pad_last_batch": True, "stick_to_shard": True},
     "a0 a1 a2 a3 | b0 b0 b0 b0 | a0 a1 a2 a3 | b0 b0 b0 b0 | a0 a1 a2 a3 | b0 b0 b0 b0"),
    ({"random_shuffle": True, "initial_fill": 4, "seed": 9, "num_shards": 2, "shard_id": 1},
     "a3 c0 a1 b2 | b4 b1 a0 c1 | a2 b3 b0 b1 | b2 a1 c0 a3 | b4 c1 b0 a2 | b3 a0 a3 a1"),
    ({"shuffle_after_epoch": True},
     "b4 a2 b3 b2 | a3 b1 c0 a1 | c1 a0 b0 a0 | a2 b1 b2 a1 | c0 b4 c1 a3 | b3 b0 b4 a3"),
    ({"shuffle_after_epoch": True, "shuffle_after_epoch_seed": -7, "num_shards": 3,
      "shard_id": 1},
     "a2 b2 a1 a3 | c1 b4 a3 c0 | c1 a2 b1 c0 | b2 c1 a2 b1 | b1 a2 b2 b4 | a2 b3 a3 b2"),
    ({"shuffle_after_epoch": True, "shuffle_after_epoch_seed": 2**40 + 3, "num_shards": 2,
      "shard_id": 1, "pad_last_batch": True},
     "a3 a2 b2 b3 | a1 b1 b1 b1 | c0 b2 a3 a1 | a2 b3 b3 b3 | b0 b3 a2 a1 | a0 b4 b4 b4"),
]


def _golden_ids():
    return [",".join(f"{k}={v}" for k, v in kw.items()) or "sequential" for kw, _ in GOLDEN]


@pytest.mark.parametrize(("kwargs", "expected"), GOLDEN, ids=_golden_ids())
def test_order_matches_real_dali(tree, kwargs, expected):
    names, *_ = read(tree, **kwargs)
    assert " | ".join(names) == expected


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"random_shuffle": True, "initial_fill": 3, "seed": 11, "pad_last_batch": True,
     "num_shards": 4, "shard_id": 3},
    {"random_shuffle": True, "initial_fill": 6, "num_shards": 3, "shard_id": 2,
     "stick_to_shard": True},
    {"random_shuffle": True, "initial_fill": 2, "pad_last_batch": True, "num_shards": 2,
     "shard_id": 1, "batch_size": 3},
    {"file_filters": ["*.jpg"], "case_sensitive_filter": True, "random_shuffle": True},
    {"dir_filters": ["[ac]"]},
    {"shuffle_after_epoch": True, "batch_size": 5, "num_shards": 4, "shard_id": 2},
    {"shuffle_after_epoch": True, "shuffle_after_epoch_seed": 12345, "pad_last_batch": True,
     "num_shards": 3, "shard_id": 0, "batch_size": 3},
], ids=["shuffle-pad-4shards", "shuffle-stick", "pad-batch3", "case-sensitive", "dir-filters",
        "after-epoch-4shards", "after-epoch-seed-pad"])
def test_order_labels_infos_and_meta_match_the_oracle(tree, kwargs):
    ours = read(tree, iterations=8, **kwargs)
    theirs = read(tree, iterations=8, pkg="nvidia.dali", **kwargs)
    assert ours == theirs


def test_outputs_bytes_labels_and_source_info(tree):
    names, labels, infos, meta = read(tree, iterations=3)
    assert names[0] == "a0 a1 a2 a3"
    assert labels == [[0, 0, 0, 0], [1, 1, 1, 1], [1, 2, 2, 0]]
    assert infos[2] == ["b/b4.jpg", "c/c0.JPG", "c/c1.JPG", "a/a0.jpg"]
    assert meta == {"epoch_size": 11, "epoch_size_padded": 11, "number_of_shards": 1,
                    "shard_id": 0, "pad_last_batch": 0, "stick_to_shard": 0}

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        data, label = fn.readers.file(file_root=tree)
        return data, label

    data, label = pipe().run()
    assert data.dtype == dali.types.UINT8 and label.dtype == dali.types.INT32
    assert data.at(1).tolist() == list(b"a1") and data.layout() == ""
    assert label.at(0).shape == (1,) and label.is_dense_tensor()


def test_reader_meta_and_epoch_size_with_padding(tree):
    *_, meta = read(tree, iterations=1, num_shards=3, shard_id=2, pad_last_batch=True)
    assert meta == {"epoch_size": 11, "epoch_size_padded": 12, "number_of_shards": 3,
                    "shard_id": 2, "pad_last_batch": 1, "stick_to_shard": 0}

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        d, _ = fn.readers.file(file_root=tree, name="Reader", num_shards=3, shard_id=2,
                               pad_last_batch=True, shuffle_after_epoch=True)
        return d

    p = pipe()
    assert p.epoch_size() == {"Reader": 12} and p.epoch_size("Reader") == 12
    assert p.reader_meta("Reader")["stick_to_shard"] == 1     # implied by shuffle_after_epoch
    with pytest.raises(RuntimeError, match='Reader "nope" does not exist'):
        p.reader_meta("nope")


def test_filters(tree):
    names, *_ = read(tree, iterations=3, file_filters=["*.jpg"])
    assert names[2] == "b4 c0 c1 a0"                     # *.jpg matches .JPG by default
    names, *_, meta = read(tree, iterations=3, file_filters=["*.jpg"],
                           case_sensitive_filter=True)
    assert names[2] == "b4 a0 a1 a2" and meta["epoch_size"] == 9
    names, labels, _, meta = read(tree, iterations=2, dir_filters=["[ac]"])
    assert names == ["a0 a1 a2 a3", "c0 c1 a0 a1"] and labels[1] == [1, 1, 0, 0]
    names, *_ = read(tree, iterations=1, file_filters="*.txt")
    assert names == ["txt txt txt txt"]


def test_file_list_files_and_labels(tree):
    names, labels, infos, _ = read(tree, iterations=1, batch_size=3, file_root=None,
                                   file_list=os.path.join(tree, "list.txt"))
    assert (names, labels, infos) == (["a0 b1 c0"], [[3, 7, 1]],
                                      [["a/a0.jpg", "b/b1.jpg", "c/c0.JPG"]])
    names, labels, infos, _ = read(tree, iterations=1, batch_size=3, file_root=tree + "/a",
                                   files=["a0.jpg", "a1.jpg"])
    assert (names, labels, infos) == (["a0 a1 a0"], [[0, 1, 0]],
                                      [["a0.jpg", "a1.jpg", "a0.jpg"]])
    full = [os.path.join(tree, "b", "b2.jpg"), os.path.join(tree, "a", "a3.jpg")]
    names, labels, infos, _ = read(tree, iterations=1, batch_size=2, file_root=None,
                                   files=full, labels=[5, 9])
    assert (names, labels, infos) == (["b2 a3"], [[5, 9]], [full])


def test_shuffle_after_epoch_gives_a_new_permutation_every_epoch(tree):
    names, *_ = read(tree, iterations=11, batch_size=3, shuffle_after_epoch=True)
    flat = " ".join(names).split()
    epochs = [flat[i:i + 11] for i in range(0, 33, 11)]
    assert all(sorted(e) == sorted(epochs[0]) for e in epochs)
    assert epochs[0] != epochs[1] != epochs[2]
    again, *_ = read(tree, iterations=11, batch_size=3, shuffle_after_epoch=True, seed=99)
    assert again == names                       # independent of the pipeline seed
    other, *_ = read(tree, iterations=11, batch_size=3, shuffle_after_epoch=True,
                     shuffle_after_epoch_seed=3)
    assert other != names


def test_order_does_not_depend_on_threads_or_executor(tree):
    base = read(tree, iterations=5, random_shuffle=True, initial_fill=5)
    assert read(tree, iterations=5, random_shuffle=True, initial_fill=5, num_threads=2) == base

    @experimental.pipeline_def(batch_size=4, num_threads=1, device_id=None,
                                             seed=7, debug=True)
    def debug_pipe():
        d, _ = fn.readers.file(file_root=tree, random_shuffle=True, initial_fill=5, seed=5)
        return d

    graph = read(tree, iterations=2, random_shuffle=True, initial_fill=5, seed=5)[0]
    p = debug_pipe()
    p.build()
    got = [" ".join(bytes(np.array(t)).decode() for t in p.run()[0]) for _ in range(2)]
    assert got == graph


def _one_file(tmp_path, data):
    """A pipeline (batch 1) reading x/s.jpg, which holds `data`, and a function that replaces
    the file by renaming a file of other contents over it."""
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "s.jpg").write_bytes(data)

    def replace(contents):
        (tmp_path / "new").write_bytes(contents)
        os.replace(tmp_path / "new", tmp_path / "x" / "s.jpg")

    @pipeline_def(batch_size=1, num_threads=1, device_id=None, exec_pipelined=False,
                  exec_async=False)
    def pipe(read_ahead=False):
        return fn.readers.file(file_root=str(tmp_path), read_ahead=read_ahead)[0]

    return pipe, replace


def test_read_ahead_keeps_the_first_contents(tmp_path):
    pipe, replace = _one_file(tmp_path, b"old")
    cached, plain = pipe(True), pipe(False)
    assert bytes(cached.run()[0].at(0)) == bytes(plain.run()[0].at(0)) == b"old"
    replace(b"newer")
    # The next batch may have been read ahead before the change; the one after was not.
    assert bytes(plain.run()[0].at(0)) in (b"old", b"newer")
    cached.run()
    assert bytes(cached.run()[0].at(0)) == b"old"
    assert bytes(plain.run()[0].at(0)) == b"newer"


def test_files_replaced_with_other_sizes_are_read_whole(tmp_path):
    pipe, replace = _one_file(tmp_path, b"abc")
    p = pipe()
    old = b"abc"
    assert bytes(p.run()[0].at(0)) == old
    for new in (b"longer", b"x", b""):         # read first with the size of the last read
        replace(new)
        # the next batch may have been read ahead before the change; the ones after were not
        assert bytes(p.run()[0].at(0)) in (old, new)
        assert [bytes(p.run()[0].at(0)) for _ in range(2)] == [new, new]
        old = new


def _numbered_files(tmp_path, n):
    """A pipeline (batch 2) reading x/0.jpg ... x/{n-1}.jpg, each holding its number."""
    (tmp_path / "x").mkdir()
    for i in range(n):
        (tmp_path / "x" / f"{i}.jpg").write_bytes(b"%d" % i)

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, exec_pipelined=False,
                  exec_async=False)
    def pipe(depth=1):
        return fn.readers.file(file_root=str(tmp_path), prefetch_queue_depth=depth)[0]

    return pipe


def test_files_are_read_ahead_by_prefetch_queue_depth_batches(tmp_path):
    pipe = _numbered_files(tmp_path, 6)
    for depth in (1, 2, 3):
        p = pipe(depth)
        assert [[bytes(np.array(t)) for t in p.run()[0]] for _ in range(4)] == \
            [[b"0", b"1"], [b"2", b"3"], [b"4", b"5"], [b"0", b"1"]]
        reader = p._executor.ops[0]
        assert [[name for _, name, _ in batch] for batch, _ in reader._ahead] == \
            [[f"x/{2 * (k % 3)}.jpg", f"x/{2 * (k % 3) + 1}.jpg"] for k in range(4, 4 + depth)]


def test_a_file_removed_after_listing_fails_its_own_iteration(tmp_path):
    p = _numbered_files(tmp_path, 4)()
    p.build()
    (tmp_path / "x" / "3.jpg").unlink()
    assert [bytes(np.array(t)) for t in p.run()[0]] == [b"0", b"1"]
    with pytest.raises(RuntimeError, match=r"cannot read .*3\.jpg: No such file"):
        p.run()


BUILD_ERRORS = [
    ({"file_root": "/nonexistent/dir"}, "Failed to open /nonexistent/dir"),
    ({"files": ["x.jpg"], "file_list": "l.txt"},
     "File paths can be provided through ``files`` or ``file_list`` but not both"),
    ({"labels": [1]}, "``labels`` is valid only when file paths are provided as ``files``"),
    ({"files": ["a.jpg", "b.jpg"], "labels": [1]}, "Provided 1 labels for 2 files"),
    ({"num_shards": 2, "shard_id": 2}, "num_shards needs to be greater than shard_id"),
    ({"num_shards": 20}, "The number of input samples: 11, needs to be at least equal to the "
                         "requested number of shards: 20"),
    ({"shuffle_after_epoch": True, "random_shuffle": True},
     "shuffle_after_epoch and random_shuffle cannot be both true"),
    ({"shuffle_after_epoch": True, "stick_to_shard": True},
     "shuffle_after_epoch and stick_to_shard cannot be both true"),
    ({"file_filters": ["*.gif"]}, "No files found"),
    ({"file_root": None}, "``file_root`` argument is required when not using ``files`` or "
                          "``file_list``"),
    ({"file_list": "/nonexistent/list.txt", "file_root": None},
     "Cannot open: /nonexistent/list.txt"),
    ({"random_shuffle": True, "initial_fill": 0}, "initial_fill must be at least 1"),
]


@pytest.mark.parametrize(("kwargs", "message"), BUILD_ERRORS,
                         ids=[m[:30] for _, m in BUILD_ERRORS])
def test_errors_at_build(tree, kwargs, message):
    kwargs = {"file_root": tree, **kwargs}
    with pytest.raises(RuntimeError, match=r"(?s)^Critical error when building pipeline:.*"
                                           r"readers\.file.*test_file\.py.*" +
                       re.escape(message)):
        read(tree, iterations=0, **kwargs)


def test_malformed_file_list(tmp_path):
    lst = tmp_path / "bad.txt"
    lst.write_text("ok.jpg 1\nno_label.jpg\n")
    with pytest.raises(RuntimeError, match=f'Incorrect format of the list file "{lst}":2'):
        read(None, iterations=0, file_root=None, file_list=str(lst))


def test_lazy_init_lists_at_the_first_run():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.readers.file(file_root="/nonexistent/dir", lazy_init=True)[0]

    p = pipe()
    p.build()                                   # nothing listed yet
    with pytest.raises(RuntimeError, match="Failed to open /nonexistent/dir"):
        p.run()


def test_a_file_gone_at_run_time_names_the_file(tmp_path):
    (tmp_path / "c").mkdir()
    for n in ("x.jpg", "y.jpg"):
        (tmp_path / "c" / n).write_bytes(n.encode())

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.readers.file(file_root=str(tmp_path))[0]

    p = pipe()
    p.build()
    os.remove(tmp_path / "c" / "y.jpg")
    with pytest.raises(RuntimeError,
                       match=r"(?s)readers\.file.*y\.jpg: No such file.*sample 1 of the batch") \
            as info:
        p.run()
    assert "test_file.py" in str(info.value)          # the user's line


def test_unimplemented_argument_is_refused(tree):
    with pytest.raises(NotImplementedError, match="skip_cached_images"):
        fn.readers.file(file_root=tree, skip_cached_images=True)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{"random_shuffle": True, "initial_fill": 100},
                                    {"shuffle_after_epoch": True, "num_shards": 3,
                                     "shard_id": 1}])
def test_a_long_file_list_matches_the_oracle(tmp_path, kwargs):
    """20,000 lines (parsed in C, kept as arrays) over 16 files: labels in DALI's order."""
    for i in range(16):
        (tmp_path / f"{i}.jpg").write_bytes(bytes([i]))
    listing = tmp_path / "list.txt"
    listing.write_text("".join(f"{i % 16}.jpg {i}\n" for i in range(20000)))
    ours = read(None, iterations=5, batch_size=64, file_list=str(listing), file_root=None,
                **kwargs)
    theirs = read(None, iterations=5, batch_size=64, pkg="nvidia.dali", file_list=str(listing),
                  file_root=None, **kwargs)
    assert ours[1:3] == theirs[1:3]


def test_unusual_file_lists_are_parsed_by_python_rules(tmp_path):
    """A list with a form feed in a name goes through Python's rules (str.splitlines splits
    there), as before the C parser."""
    (tmp_path / "a b.jpg").write_bytes(b"ab")
    (tmp_path / "c.jpg").write_bytes(b"c")
    (tmp_path / "list.txt").write_text("a b.jpg 4\r\nc.jpg 5\x0c\n")
    names, labels, infos, _ = read(str(tmp_path), iterations=1, batch_size=2,
                                   file_list=str(tmp_path / "list.txt"))
    assert (names, labels, infos) == (["ab c"], [[4, 5]], [["a b.jpg", "c.jpg"]])


def test_large_batches_are_read_over_the_readers_threads(tmp_path):
    # batches of at least _SPREAD_BYTES are read by the reader's own threads: the same bytes,
    # and a file that changed size is still found (the first, by index)
    from dali.ops.readers import file as file_reader
    rng = np.random.default_rng(5)
    (tmp_path / "x").mkdir()
    sizes = [3 << 20, 1 << 20, 2 << 20, 5, 0, 7 << 19]
    contents = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in sizes]
    for i, c in enumerate(contents):
        (tmp_path / "x" / f"{i}.bin").write_bytes(c)
    assert sum(sizes[:3]) >= file_reader._SPREAD_BYTES

    @pipeline_def(batch_size=3, num_threads=2, device_id=None, exec_pipelined=False,
                  exec_async=False)
    def pipe():
        return fn.readers.file(file_root=str(tmp_path), file_filters="*.bin")[0]

    p = pipe()
    got = [bytes(np.array(t)) for _ in range(4) for t in p.run()[0]]
    assert got == contents + contents
    reader = p._executor.ops[0]
    assert reader._read_pool is not None and reader._read_pool.num_threads == 2
    (tmp_path / "x" / "1.bin").write_bytes(b"short")     # read with the size it had
    (tmp_path / "x" / "2.bin").write_bytes(b"")
    p.run()
    p.run()                                     # (the batches read ahead before the change)
    got = [bytes(np.array(t)) for t in p.run()[0]]
    assert got == [contents[0], b"short", b""]
