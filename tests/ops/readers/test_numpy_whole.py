"""fn.readers.numpy's whole-file reads of batches whose files share one header
(`files.read_split`, one open per file, spread over the reader's threads): the same arrays as
the general path, and the general path taken again when a file changes on disk (another
header, a truncated or longer file, a missing one)."""

from __future__ import annotations

import errno
import os

import numpy as np
import pytest
from dali._ext.thread_pool import ThreadPool

from dali import fn, pipeline_def
from dali._ext import files
from dali.ops.readers import numpy as numpy_reader


def _pipe(root, batch_size=4, num_threads=2, **kwargs):
    @pipeline_def(batch_size=batch_size, num_threads=num_threads, device_id=None, seed=3,
                  exec_async=False, exec_pipelined=False)
    def pipe():
        out = fn.readers.numpy(file_root=str(root), name="R", **kwargs)
        return out, out.source_info()

    p = pipe()
    p.build()
    return p


def _reader(p):
    """The reader "R" of the pipeline `p`."""
    return p._readers()["R"]


def _settle(reader):
    """Wait for the batches read ahead (a synchronous pipeline: its reader is idle then)."""
    for _, done in reader._ahead:
        done.result()


def _batch(p):
    out, si = p.run()
    return [np.array(t) for t in out], [bytes(np.array(si[i])).decode() for i in range(len(si))]


def _save(root, arrays):
    for i, a in enumerate(arrays):
        np.save(root / f"{i:02d}.npy", a)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64, np.bool_])
@pytest.mark.parametrize("shape", [(5, 7, 3), (0, 4), (), (200, 301)])
@pytest.mark.parametrize("num_threads", [1, 3])
def test_batches_of_one_header_read_whole_match_numpy(tmp_path, dtype, shape, num_threads):
    rng = np.random.default_rng(len(shape) * 7 + np.dtype(dtype).itemsize)
    arrays = [(rng.random(shape) * 200).astype(dtype) for _ in range(6)]
    _save(tmp_path, arrays)
    p = _pipe(tmp_path, batch_size=4, num_threads=num_threads)
    reader = _reader(p)
    calls = []
    real = files.read_split
    numpy_reader.files.read_split = lambda *a: calls.append(1) or real(*a)
    try:
        for it in range(4):
            got, names = _batch(p)
            want = [(4 * it + k) % 6 for k in range(4)]
            assert names == [f"./{i:02d}.npy" for i in want]
            for g, i in zip(got, want, strict=True):
                assert g.dtype == arrays[i].dtype and g.shape == arrays[i].shape
                np.testing.assert_array_equal(g, arrays[i])
    finally:
        numpy_reader.files.read_split = real
    assert reader._guess is not None
    assert calls, "the batches after the first were not read whole"


def test_a_file_changed_on_disk_is_read_by_the_general_path(tmp_path):
    arrays = [np.full((4, 5), i, np.int32) for i in range(4)]
    _save(tmp_path, arrays)
    p = _pipe(tmp_path, batch_size=4, prefetch_queue_depth=1)
    _batch(p)
    _batch(p)
    reader = _reader(p)
    assert reader._guess is not None
    _settle(reader)
    np.save(tmp_path / "02.npy", np.full((3, 5), 9, np.int32))     # another header
    _batch(p)                                       # read ahead before the change
    got, _ = _batch(p)
    assert got[2].shape == (3, 5) and (got[2] == 9).all()
    for i in (0, 1, 3):
        np.testing.assert_array_equal(got[i], arrays[i])
    _settle(reader)
    with open(tmp_path / "01.npy", "ab") as f:       # longer than its header says: accepted
        f.write(b"trailing")
    _batch(p)
    got, _ = _batch(p)
    np.testing.assert_array_equal(got[1], arrays[1])
    assert got[2].shape == (3, 5)


def test_a_truncated_file_fails_naming_it(tmp_path):
    _save(tmp_path, [np.arange(40, dtype=np.float32).reshape(8, 5) for _ in range(4)])
    p = _pipe(tmp_path, batch_size=4)
    _batch(p)
    _batch(p)
    assert _reader(p)._guess is not None
    _settle(_reader(p))
    size = os.path.getsize(tmp_path / "03.npy")
    os.truncate(tmp_path / "03.npy", size - 7)
    _batch(p)                                       # read ahead before the truncation
    with pytest.raises(RuntimeError,
                       match=r"it has 281 bytes, its header describes 288\. File: \./03\.npy"):
        _batch(p)


def test_a_missing_file_fails_naming_it(tmp_path):
    _save(tmp_path, [np.zeros((2, 2), np.uint8) for _ in range(3)])
    p = _pipe(tmp_path, batch_size=3)
    _batch(p)
    _settle(_reader(p))
    os.remove(tmp_path / "01.npy")
    _batch(p)
    with pytest.raises(RuntimeError, match=r"Failed to open file: \./01\.npy"):
        _batch(p)


def test_on_error_skip_after_whole_reads(tmp_path):
    _save(tmp_path, [np.full((3,), i, np.int64) for i in range(4)])
    p = _pipe(tmp_path, batch_size=4, on_error="skip")
    _batch(p)
    _settle(_reader(p))
    (tmp_path / "02.npy").write_bytes(b"\x93NUMPY broken")
    _batch(p)
    with pytest.warns(RuntimeWarning, match="1 sample"):
        got, names = _batch(p)
    assert "./02.npy" not in names and len(got) == 4
    assert [int(g[0]) for g in got] == [int(n[2:4]) for n in names]


@pytest.mark.parametrize("threads", [None, 1, 3])
def test_read_split_splits_each_file(tmp_path, threads):
    pool = None if threads is None else ThreadPool(threads)
    sizes = [10, 3, 17, 0, 9]
    paths = []
    for i, n in enumerate(sizes):
        path = tmp_path / f"f{i}"
        path.write_bytes(bytes((i * 31 + k) % 256 for k in range(n)))
        paths.append(str(path))
    heads = np.full((5, 4), 255, np.uint8)
    out = np.full(5 * 6, 255, np.uint8)
    got, failure = files.read_split(paths, heads, out, 6, pool)
    assert failure is None
    assert got.tolist() == [min(n, 11) for n in sizes]           # at most k + size + 1
    for i, n in enumerate(sizes):
        data = bytes((i * 31 + k) % 256 for k in range(n))
        assert bytes(heads[i, :min(n, 4)]) == data[:4]
        assert bytes(out[6 * i:6 * i + max(0, min(n, 10) - 4)]) == data[4:10]
    missing = paths[:2] + [str(tmp_path / "nope")] + paths[3:]
    assert files.read_split(missing, heads, out, 6, pool) == (None, (2, errno.ENOENT))
    assert files.read_split([str(tmp_path)], heads[:1], out[:6], 6, pool)[1] == (0, errno.EISDIR)


def test_read_split_checks_its_buffers(tmp_path):
    path = str(tmp_path / "f")
    open(path, "wb").close()
    heads = np.zeros((1, 4), np.uint8)
    with pytest.raises(ValueError, match="out must be"):
        files.read_split([path], heads, np.zeros(5, np.uint8), 6)
    with pytest.raises(ValueError, match="out must be"):
        files.read_split([path], heads, np.zeros(6, np.uint8)[::1].view(np.int8), 6)
    with pytest.raises(ValueError, match="heads must be"):
        files.read_split([path, path], heads, np.zeros(12, np.uint8), 6)
    with pytest.raises(ValueError, match="no None paths"):
        files.read_split([None], heads, np.zeros(6, np.uint8), 6)
