"""on_error="skip" of the readers (readers.file, readers.numpy): bad samples are replaced by
the next ones, each good sample comes once an epoch, reader_meta lists the skipped ones and a
warning gives their count once per epoch; "raise" (the default) fails as DALI does."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from dali import fn, pipeline_def
from dali.ops.readers import _common


def _pipe(reader, batch_size, pipe_args=None, arg_inputs=None, **kwargs):
    """A pipeline of `reader` (named "R") returning its first output and source info;
    `arg_inputs`: argument name -> a batch source (an external_source fed to it)."""
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, seed=3,
                  **(pipe_args or {}))
    def pipe():
        extra = {k: fn.external_source(source=v, batch=True)
                 for k, v in (arg_inputs or {}).items()}
        out = reader(name="R", **kwargs, **extra)
        first = out[0] if isinstance(out, (list, tuple)) else out
        return first, first.source_info()
    p = pipe()
    p.build()
    return p


def _names(p, iterations):
    out = []
    for _ in range(iterations):
        data, si = p.run()
        out.append([bytes(np.array(si[i])).decode() for i in range(len(si))])
    return out


@pytest.fixture(params=["threaded", "inline"])
def read_mode(request, monkeypatch):
    """Batches read on the reader's thread, or (after the first) on the pipeline's at once,
    as quick reads are (`_common.INLINE_READ_S`): the same samples, skips and errors."""
    monkeypatch.setattr(_common, "INLINE_READ_S", 0.0 if request.param == "threaded" else 1.0)
    return request.param


@pytest.fixture(scope="module")
def npy_set(tmp_path_factory):
    """1000 .npy files, 3 of them corrupt (a bad header, truncated, empty)."""
    root = tmp_path_factory.mktemp("skip")
    bad = {"0137.npy", "0500.npy", "0999.npy"}
    for i in range(1000):
        name = f"{i:04d}.npy"
        with open(root / name, "wb") as f:
            np.save(f, np.full((2, 3), i, np.int32))
    raw = (root / "0137.npy").read_bytes()
    (root / "0137.npy").write_bytes(raw[:10] + b"garbage" + raw[17:])
    (root / "0500.npy").write_bytes(raw[:-4])
    (root / "0999.npy").write_bytes(b"")
    return str(root), bad


@pytest.mark.parametrize("kwargs", [dict(), dict(random_shuffle=True, initial_fill=64),
                                    dict(prefetch_queue_depth=3)])
def test_an_epoch_returns_every_good_sample_once(npy_set, kwargs, read_mode):
    root, bad = npy_set
    p = _pipe(fn.readers.numpy, 32, file_root=root, on_error="skip", **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = [n for batch in _names(p, 31) for n in batch]     # 992 samples: 997 good
        assert len(names) == 992 and len(set(names)) == 992
        good = {f"./{i:04d}.npy" for i in range(1000)} - {f"./{b}" for b in bad}
        assert set(names) <= good
        rest = _names(p, 1)[0]               # 5 more good samples end the epoch
        assert set(names) | set(rest[:5]) == good
        skipped = p.reader_meta("R")["skipped"]
        assert sorted(s["sample"] for s in skipped) == sorted(f"./{b}" for b in bad)
        reasons = {s["sample"]: s["reason"] for s in skipped}
        assert "Header is corrupted" in reasons["./0137.npy"]
        assert "0500.npy" in reasons["./0500.npy"]
        counts = [str(w.message) for w in caught if "skipped in this epoch" in str(w.message)]
        assert len(counts) == 1 and "3 sample(s)" in counts[0]
        _names(p, 31)                        # the second epoch: the same three, once more
        counts = [str(w.message) for w in caught if "skipped in this epoch" in str(w.message)]
        assert len(counts) == 2
        assert len(p.reader_meta("R")["skipped"]) == 6


def test_raise_is_the_default(npy_set):
    root, _ = npy_set
    p = _pipe(fn.readers.numpy, 200, file_root=root)
    with pytest.raises(RuntimeError, match="0137.npy"):
        p.run()


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_file_reader_skips_missing_files(tmp_path, depth, read_mode):
    names = [f"{i}.bin" for i in range(10)]
    for n in names:
        (tmp_path / n).write_bytes(n.encode())
    os.remove(tmp_path / "4.bin")
    os.remove(tmp_path / "5.bin")
    p = _pipe(fn.readers.file, 4, file_root=str(tmp_path), files=names, on_error="skip",
              prefetch_queue_depth=depth)
    with pytest.warns(RuntimeWarning, match=r"2 sample\(s\) that could not be read"):
        got = [n for batch in _names(p, 2) for n in batch]
    assert got == ["0.bin", "1.bin", "2.bin", "3.bin", "6.bin", "7.bin", "8.bin", "9.bin"]
    skipped = p.reader_meta("R")["skipped"]
    assert [s["sample"] for s in skipped] == ["4.bin", "5.bin"]
    assert "No such file" in skipped[0]["reason"]
    p = _pipe(fn.readers.file, 4, file_root=str(tmp_path), files=names)
    p.run()
    with pytest.raises(RuntimeError, match="4.bin"):
        p.run()


def test_bad_on_error_value(tmp_path):
    (tmp_path / "a.bin").write_bytes(b"a")
    with pytest.raises(RuntimeError, match='on_error must be "raise" or "skip"'):
        _pipe(fn.readers.file, 1, file_root=str(tmp_path), files=["a.bin"], on_error="ignore")


@pytest.mark.parametrize("kwargs", [{}, dict(num_shards=2, shard_id=0, stick_to_shard=True)])
def test_a_data_set_where_every_sample_fails_is_an_error(tmp_path, kwargs):
    names = [f"{i}.bin" for i in range(6)]
    for n in names:
        (tmp_path / n).write_bytes(n.encode())
    # synchronous: no iteration runs (and warns) outside the warning checks below
    p = _pipe(fn.readers.file, 2, file_root=str(tmp_path), files=names, on_error="skip",
              pipe_args=dict(exec_async=False, exec_pipelined=False), **kwargs)
    for n in names[:3]:                      # shard 0 of 2, or 3 of the 6 files
        os.remove(tmp_path / n)
    if not kwargs:
        with pytest.warns(RuntimeWarning, match=r"3 sample\(s\)"):
            got = [n for batch in _names(p, 2) for n in batch]  # the good files, then none
        assert got == ["3.bin", "4.bin", "5.bin", "3.bin"]
        for n in names[3:]:
            os.remove(tmp_path / n)
    with pytest.raises(RuntimeError, match=r'every sample was skipped \(on_error="skip"\), '
                                           r"none can be read; the last, \d.bin: cannot read"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # the epochs' counts before
            _names(p, 4)


def _ends(batch_size):
    """Per-position ends of a region of interest over the columns: position j keeps
    j % 3 + 1 columns."""
    return [np.array([j % 3 + 1], np.int32) for j in range(batch_size)]


@pytest.mark.parametrize("roi", ["constants", "inputs"])
def test_numpy_regions_skip_bad_files(npy_set, roi):
    """With a region of interest (constants, or argument inputs whose values belong to batch
    positions: a replacement sample takes its position's), one epoch returns every good file
    once, with its region."""
    root, bad = npy_set
    if roi == "constants":
        kwargs, ends = dict(roi_end=[2]), [np.array([2])] * 32
    else:
        kwargs, ends = dict(arg_inputs={"roi_end": lambda: _ends(32)}), _ends(32)
    p = _pipe(fn.readers.numpy, 32, file_root=root, on_error="skip", roi_start=[1],
              roi_axes=[1], **kwargs)
    names = []
    with pytest.warns(RuntimeWarning, match=r"3 sample\(s\)"):
        for _ in range(32):                       # 1024 samples: the epoch's 997 and 27 more
            data, si = p.run()
            for j in range(32):
                name = bytes(np.array(si[j])).decode()
                ref = np.full((2, 3), int(name[2:6]), np.int32)[:, 1:int(ends[j][0])]
                np.testing.assert_array_equal(np.array(data[j]), ref)
                names.append(name)
    good = [f"./{i:04d}.npy" for i in range(1000) if f"{i:04d}.npy" not in bad]
    assert names[:997] == good and names[997:] == good[:27]
    skipped = p.reader_meta("R")["skipped"]
    assert [s["sample"] for s in skipped] == sorted(f"./{b}" for b in bad)


def test_numpy_region_inputs_raise_naming_the_file(npy_set):
    root, _ = npy_set
    p = _pipe(fn.readers.numpy, 200, file_root=root, roi_start=[1], roi_axes=[1],
              arg_inputs={"roi_end": lambda: _ends(200)})
    with pytest.raises(RuntimeError, match=r"Header is corrupted\. File: \./0137\.npy"):
        p.run()


@pytest.mark.parametrize("kwargs,message", [
    (dict(roi_start=[1], roi_end=[5], roi_axes=[1]), "out of bounds"),
    (dict(arg_inputs={"roi_start": lambda: [np.array([j % 5], np.int32) for j in range(4)]},
          roi_shape=[1], roi_axes=[1]), "out of bounds"),
    (dict(files=["0001.npy", "float.npy"]), "same data type"),
])
def test_numpy_regions_and_types_that_do_not_fit_are_not_skipped(npy_set, tmp_path, kwargs,
                                                                 message):
    """A region outside an array or a sample of another type than its batch's is an error
    with on_error="skip" too: the samples replacing it would not fit either."""
    root, _ = npy_set
    if "files" in kwargs:
        root = str(tmp_path)
        np.save(tmp_path / "0001.npy", np.zeros((2, 3), np.int32))
        np.save(tmp_path / "float.npy", np.zeros((2, 3), np.float32))
    p = _pipe(fn.readers.numpy, 4, file_root=root, on_error="skip", **kwargs)
    with pytest.raises(RuntimeError, match=message):
        p.run()
    assert p.reader_meta("R")["skipped"] == []
