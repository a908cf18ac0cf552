"""fn.readers.numpy's reads of batches whose files share one header, whole
(`files.read_split`) or a region of interest (`files.read_region_split`), one open per file,
spread over the reader's threads: the same arrays as the general path, and the general path
taken again when a file changes on disk (another header, a truncated or longer file, a
missing one)."""

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


def _count_calls(monkeypatch, name):
    """A list that gets an entry for each call of `files.<name>` (the reader's fast paths)."""
    calls, real = [], getattr(files, name)
    monkeypatch.setattr(numpy_reader.files, name, lambda *a: calls.append(1) or real(*a))
    return calls


def _check_four_batches(p, reference):
    """Four batches of 4 from `p`, reading the 6 files saved in order, equal `reference(i)`
    for file i."""
    for it in range(4):
        got, names = _batch(p)
        want = [(4 * it + k) % 6 for k in range(4)]
        assert names == [f"./{i:02d}.npy" for i in want]
        for g, i in zip(got, want, strict=True):
            ref = reference(i)
            assert g.dtype == ref.dtype and g.shape == ref.shape
            np.testing.assert_array_equal(g, ref)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64, np.bool_])
@pytest.mark.parametrize("shape", [(5, 7, 3), (0, 4), (), (200, 301)])
@pytest.mark.parametrize("num_threads", [1, 3])
def test_batches_of_one_header_read_whole_match_numpy(tmp_path, monkeypatch, dtype, shape,
                                                      num_threads):
    rng = np.random.default_rng(len(shape) * 7 + np.dtype(dtype).itemsize)
    arrays = [(rng.random(shape) * 200).astype(dtype) for _ in range(6)]
    _save(tmp_path, arrays)
    p = _pipe(tmp_path, batch_size=4, num_threads=num_threads)
    calls = _count_calls(monkeypatch, "read_split")
    _check_four_batches(p, arrays.__getitem__)
    assert _reader(p)._guess is not None
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


def _held(paths):
    """The paths among `paths` this process holds open or maps (/proc/self/fd, maps)."""
    held = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            held.add(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    with open("/proc/self/maps") as f:
        maps = f.read()
    return [q for q in paths if str(q) in held or str(q) in maps]


@pytest.mark.parametrize("dont_use_mmap", [False, True])
@pytest.mark.parametrize("whole", [True, False])
def test_batches_are_copies_that_outlive_their_files(tmp_path, dont_use_mmap, whole):
    """With dont_use_mmap=False (DALI's default, where DALI maps each file, then copies it into
    its batch) the files are read too: the batch holds copies, no file stays open or mapped,
    and the samples keep their values after the files are truncated and removed (pages of a
    mapping would raise SIGBUS then)."""
    arrays = [np.arange(k, k + 300 * 512, dtype=np.float32).reshape(300, 512) for k in range(4)]
    _save(tmp_path, arrays)
    paths = sorted(tmp_path.glob("*.npy"))
    p = _pipe(tmp_path, batch_size=4, dont_use_mmap=dont_use_mmap)
    reader = _reader(p)
    first, _ = p.run()
    _batch(p)
    _settle(reader)
    assert reader._guess is not None
    if not whole:
        reader._guess = None            # the general path (heads, headers, then the data)
    storage, error = reader.read([(str(q), f"./{q.name}") for q in paths])
    assert error is None
    assert _held(paths) == []
    for q in paths:
        os.truncate(q, 64)
        q.unlink()
    for s, f, a in zip(storage.samples(), [np.array(t) for t in first], arrays, strict=True):
        np.testing.assert_array_equal(s, a)
        np.testing.assert_array_equal(f, a)


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


def _roi_reference(a, start, stop, policy, fill):
    """`a[start:stop]` (per axis) with the outside filled (\"pad\") or cut (\"trim\")."""
    if policy == "trim_to_shape":
        start = [max(b, 0) for b in start]
        stop = [min(e, n) for e, n in zip(stop, a.shape, strict=True)]
    out = np.full([e - b for b, e in zip(start, stop, strict=True)], fill, a.dtype)
    lo = [max(b, 0) for b in start]
    hi = [min(e, n) for e, n in zip(stop, a.shape, strict=True)]
    if all(h > low for low, h in zip(lo, hi, strict=True)):
        out[tuple(slice(low - b, h - b) for low, h, b in zip(lo, hi, start, strict=True))] = \
            a[tuple(slice(low, h) for low, h in zip(lo, hi, strict=True))]
    return out


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("shape", [(8, 8, 3), (300, 200)])          # read whole / fstat
@pytest.mark.parametrize("policy", ["error", "pad", "trim_to_shape"])
@pytest.mark.parametrize("num_threads", [1, 3])
def test_regions_of_batches_of_one_header_match_numpy(tmp_path, monkeypatch, dtype, shape,
                                                      policy, num_threads):
    rng = np.random.default_rng(shape[0] + np.dtype(dtype).itemsize)
    arrays = [(rng.random(shape) * 200).astype(dtype) for _ in range(6)]
    _save(tmp_path, arrays)
    start = [1, 2] if policy == "error" else [-2, 3]
    stop = [shape[0] - 1, 6] if policy == "error" else [shape[0] + 3, 7]
    p = _pipe(tmp_path, batch_size=4, num_threads=num_threads, roi_start=start, roi_end=stop,
              roi_axes=[0, 1], out_of_bounds_policy=policy, fill_value=7.0)
    calls = _count_calls(monkeypatch, "read_region_split")
    _check_four_batches(p, lambda i: _roi_reference(arrays[i], start + [0] * (len(shape) - 2),
                                                    stop + list(shape[2:]), policy, 7))
    assert _reader(p)._guess is not None
    assert calls, "the batches after the first were not read with one open per file"


@pytest.mark.parametrize("shape", [(4, 5), (40, 50)])
def test_a_file_changed_under_a_region_is_read_by_the_general_path(tmp_path, shape):
    arrays = [np.arange(np.prod(shape), dtype=np.int32).reshape(shape) + i for i in range(4)]
    _save(tmp_path, arrays)
    p = _pipe(tmp_path, batch_size=4, roi_start=[1, 1], roi_end=[3, 4])
    _batch(p)
    _batch(p)
    reader = _reader(p)
    assert reader._guess is not None
    _settle(reader)
    np.save(tmp_path / "02.npy", np.full((3, 5), 9, np.int32))     # another header
    _batch(p)                                       # read ahead before the change
    got, _ = _batch(p)
    assert got[2].shape == (2, 3) and (got[2] == 9).all()
    for i in (0, 1, 3):
        np.testing.assert_array_equal(got[i], arrays[i][1:3, 1:4])
    _settle(reader)
    with open(tmp_path / "01.npy", "ab") as f:       # longer than its header says: accepted
        f.write(b"trailing")
    _batch(p)
    got, _ = _batch(p)
    np.testing.assert_array_equal(got[1], arrays[1][1:3, 1:4])
    _settle(reader)
    np.save(tmp_path / "02.npy", arrays[2])
    _batch(p)
    _batch(p)
    assert reader._guess is not None
    _settle(reader)
    size = os.path.getsize(tmp_path / "03.npy")
    os.truncate(tmp_path / "03.npy", size - 7)      # its region is still there: an error
    _batch(p)
    with pytest.raises(RuntimeError, match=rf"its header describes {size}\. File: \./03\.npy"):
        _batch(p)


@pytest.mark.parametrize("threads", [None, 1, 3])
def test_read_region_split_reads_each_region(tmp_path, threads):
    pool = None if threads is None else ThreadPool(threads)
    arrays = [np.arange(60, dtype=np.int16).reshape(5, 4, 3) * (i + 1) for i in range(5)]
    paths = []
    for i, a in enumerate(arrays):
        paths.append(str(tmp_path / f"f{i}"))
        with open(paths[-1], "wb") as f:
            f.write(bytes(range(10)) + a.tobytes() + b"tail"[:i])
    rows = np.array([[5, 4, 3], [1, 1, 0], [4, 3, 3], [4, 3, 3], [1, 0, 0]])
    need = 10 + arrays[0].nbytes
    for k in (need, 6):                               # whole files, heads only (fstat)
        heads = np.zeros((5, k), np.uint8)
        out = np.full(5 * 36, -1, np.int16)
        assert files.read_region_split(paths, heads, need, 10, 2, rows, out.view(np.uint8),
                                       pool) is None
        for i, a in enumerate(arrays):
            assert bytes(heads[i, :6]) == bytes(range(6))
            want = np.full((4, 3, 3), -1, np.int16)
            want[1:, :2] = a[1:4, 1:3]
            np.testing.assert_array_equal(out[36 * i:36 * (i + 1)].reshape(4, 3, 3), want)
        missing = paths[:3] + [str(tmp_path / "nope")] + paths[4:]
        assert files.read_region_split(missing, heads, need, 10, 2, rows, out.view(np.uint8),
                                       pool) == (3, errno.ENOENT)
    with open(paths[2], "r+b") as f:
        f.truncate(need - 1)
    for k in (need, 6):
        heads = np.zeros((5, k), np.uint8)
        assert files.read_region_split(paths, heads, need, 10, 2, rows,
                                       np.zeros(5 * 72, np.uint8), pool) == (2, 0)


def test_read_region_split_checks_its_arguments(tmp_path):
    path = str(tmp_path / "f")
    open(path, "wb").close()
    heads = np.zeros((1, 4), np.uint8)
    rows = np.array([[4], [1], [3], [2], [0]])
    with pytest.raises(ValueError, match="out must be"):
        files.read_region_split([path], heads, 8, 4, 1, rows, np.zeros(3, np.uint8))
    with pytest.raises(ValueError, match="heads must be"):
        files.read_region_split([path, path], heads, 8, 4, 1, rows, np.zeros(4, np.uint8))
    with pytest.raises(ValueError, match="rows must be"):
        files.read_region_split([path], heads, 8, 4, 1, rows[:4], np.zeros(2, np.uint8))
    with pytest.raises(ValueError, match="does not fit"):
        files.read_region_split([path], heads, 8, 4, 1, rows * [[1], [1], [2], [1], [1]],
                                np.zeros(2, np.uint8))
    with pytest.raises(ValueError, match="no None paths"):
        files.read_region_split([None], heads, 8, 4, 1, rows, np.zeros(2, np.uint8))


def test_on_error_skip_after_region_reads(tmp_path):
    _save(tmp_path, [np.full((3, 4), i, np.int64) for i in range(4)])
    p = _pipe(tmp_path, batch_size=4, on_error="skip", roi_start=[1, 1], roi_shape=[2, 2])
    _batch(p)
    _batch(p)
    assert _reader(p)._guess is not None
    _settle(_reader(p))
    (tmp_path / "02.npy").write_bytes(b"\x93NUMPY broken")
    _batch(p)
    with pytest.warns(RuntimeWarning, match="1 sample"):
        got, names = _batch(p)
    assert "./02.npy" not in names and len(got) == 4
    for g, name in zip(got, names, strict=True):
        np.testing.assert_array_equal(g, np.full((2, 2), int(name[2:4]), np.int64))


@pytest.mark.parametrize("seed", range(8))
def test_region_reads_of_one_header_match_the_general_path(tmp_path, seed):
    rng = np.random.default_rng(seed)
    ndim = 1 + seed % 3
    shape = tuple(int(x) for x in rng.integers(0 if seed == 5 else 1, 40, ndim))
    dtype = [np.uint8, np.int16, np.float64][seed % 3]
    _save(tmp_path, [(rng.random(shape) * 100).astype(dtype) for _ in range(5)])
    start = [int(x) for x in rng.integers(-5, 20, ndim)]
    size = [int(x) for x in rng.integers(0, 30, ndim)]
    kwargs = dict(roi_start=start, roi_shape=size, out_of_bounds_policy=["pad", "trim_to_shape"][
        seed % 2], fill_value=3.0)
    fast, general = _pipe(tmp_path, batch_size=3, **kwargs), _pipe(tmp_path, batch_size=3,
                                                                   **kwargs)
    _reader(general)._read_regions = lambda entries: None
    real = _reader(fast)._read_regions
    kept = []
    _reader(fast)._read_regions = lambda entries: kept.append(real(entries)) or kept[-1]
    for _ in range(4):
        (a, na), (b, nb) = _batch(fast), _batch(general)
        assert na == nb
        for x, y in zip(a, b, strict=True):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)
    # the four batches' reads, and the fifth's when its read ahead has started by now
    assert kept[0] is None and all(k is not None for k in kept[1:]) and len(kept) >= 4
