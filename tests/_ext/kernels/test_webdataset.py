"""webdataset.read_samples: the components of a batch gathered from the index tables and read in
one call (runs of nearby ranges with one preadv, gaps into a sink), checked against slices of the
files' bytes; absent and empty components, runs longer than one call takes, ranges out of
order, several archives, the first failure in sample-major order, argument checks, threads."""

from __future__ import annotations

import concurrent.futures
import errno

import numpy as np
import pytest

from dali._ext.kernels import webdataset


def _files(tmp_path, sizes=(4_000_000, 50_000)):
    rng = np.random.default_rng(0)
    data = [rng.integers(0, 256, n, dtype=np.uint8) for n in sizes]
    paths = []
    for k, d in enumerate(data):
        path = tmp_path / f"a{k}.tar"
        path.write_bytes(d.tobytes())
        paths.append(str(path).encode())
    return paths, data


def _assert_read_as_stored(paths, data, archives, offsets, sizes, ids):
    outs, failure = webdataset.read_samples(paths, ids, archives, offsets, sizes)
    assert failure is None
    assert len(outs) == offsets.shape[1]
    for j, out in enumerate(outs):
        assert out.dtype == np.uint8 and out.num_samples == len(ids)
        for i, s in enumerate(ids):
            size = sizes[s, j]
            want = data[archives[s]][offsets[s, j]:offsets[s, j] + size] if size >= 0 else []
            np.testing.assert_array_equal(out.sample(i), np.asarray(want, np.uint8))


def test_components_in_order_with_gaps(tmp_path):
    paths, data = _files(tmp_path)
    rng = np.random.default_rng(1)
    n = 300                                  # more components than one preadv takes
    sizes = rng.integers(0, 200, (n, 2)).astype(np.int64)
    gaps = rng.choice([0, 1, 511, 1024, 8192, 8193, 20000], (n, 2))
    ends = np.cumsum((sizes + gaps).reshape(-1))
    offsets = (ends - sizes.reshape(-1)).reshape(n, 2).astype(np.int64)
    assert offsets.max() + 200 < len(data[0])
    sizes[rng.random((n, 2)) < 0.1] = -1     # absent components
    archives = np.zeros(n, np.int32)
    _assert_read_as_stored(paths, data, archives, offsets, sizes, np.arange(n))
    shuffled = rng.permutation(n)[:64]
    _assert_read_as_stored(paths, data, archives, offsets, sizes, shuffled)


def test_several_archives_and_components_out_of_order(tmp_path):
    paths, data = _files(tmp_path)
    archives = np.array([0, 1, 1, 0, 1], np.int32)
    offsets = np.array([[100, 10], [5, 300], [400, 700], [50, 60], [0, 0]], np.int64)
    sizes = np.array([[20, 30], [40, -1], [0, 9], [5, 5], [1, 2]], np.int64)
    _assert_read_as_stored(paths, data, archives, offsets, sizes, np.array([0, 1, 2, 3, 4, 2, 0]))
    _assert_read_as_stored(paths, data, archives, offsets, sizes, np.array([], np.int64))


def test_the_first_failure_in_sample_major_order(tmp_path):
    paths, data = _files(tmp_path)
    end = len(data[1])
    archives = np.array([1, 1, 1], np.int32)
    offsets = np.array([[0, 100], [end - 50, end - 10], [end + 5, 0]], np.int64)
    sizes = np.array([[10, 10], [20, 30], [4, 4]], np.int64)
    outs, failure = webdataset.read_samples(paths, np.arange(3), archives, offsets, sizes)
    assert failure == (1, 1, 0, 10)          # sample 1's second component: 10 of 30 bytes
    missing = [str(tmp_path / "missing.tar").encode()]
    _, failure = webdataset.read_samples(missing, np.arange(1), np.zeros(1, np.int32),
                                         offsets[:1], sizes[:1])
    assert failure == (0, 0, errno.ENOENT, 0)


def test_argument_checks(tmp_path):
    paths, _ = _files(tmp_path)
    archives = np.array([0, 2], np.int32)
    offsets = np.zeros((2, 1), np.int64)
    sizes = np.ones((2, 1), np.int64)
    with pytest.raises(ValueError, match="sample ids out of range"):
        webdataset.read_samples(paths, np.array([2]), archives, offsets, sizes)
    with pytest.raises(ValueError, match="archive 2 out of range"):
        webdataset.read_samples(paths, np.array([1]), archives, offsets, sizes)
    with pytest.raises(ValueError, match="a row per sample"):
        webdataset.read_samples(paths, np.array([0]), archives, offsets, sizes[:1])
    with pytest.raises(ValueError, match="negative offset"):
        webdataset.read_samples(paths, np.array([0]), archives, -offsets - 1, sizes)


def test_threads_at_once(tmp_path):
    paths, data = _files(tmp_path)
    n = 200
    sizes = np.full((n, 2), 300, np.int64)
    offsets = (np.arange(2 * n, dtype=np.int64) * 450).reshape(n, 2)
    archives = np.zeros(n, np.int32)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for f in [pool.submit(_assert_read_as_stored, paths, data, archives, offsets, sizes,
                              np.arange(n)) for _ in range(16)]:
            f.result()
