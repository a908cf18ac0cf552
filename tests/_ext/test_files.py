"""Whole-file reads without the GIL: sizes, contents, and what is reported for missing files
and files that changed size; `read_into` on the caller and spread over a pool the same."""

import errno
import os
import signal
import threading
import time

import numpy as np
import pytest
from dali._ext.thread_pool import ThreadPool

from dali._ext import files


@pytest.fixture
def paths(tmp_path):
    out = []
    for k, size in enumerate((0, 1, 5000, 70000)):
        p = tmp_path / f"{k}.bin"
        p.write_bytes(bytes((i * 7 + k) % 256 for i in range(size)))
        out.append(p)
    return out


@pytest.fixture(params=["caller", "pool"])
def pool(request):
    """`read_into`'s pool: none, or two threads that take every job (no inline cost)."""
    return ThreadPool(2, inline_cost=0.0) if request.param == "pool" else None


def test_sizes_and_contents(paths, pool):
    sizes, failure = files.sizes([str(p) for p in paths])
    assert failure is None and sizes.dtype == np.int64
    assert sizes.tolist() == [0, 1, 5000, 70000]
    outs = [np.full(n, 0xAB, np.uint8) for n in sizes]
    assert files.read_into([str(p).encode() for p in paths], outs, pool) is None
    for p, out in zip(paths, outs, strict=True):
        assert out.tobytes() == p.read_bytes()


def test_none_paths_are_skipped(paths, pool):
    sizes, failure = files.sizes([None, str(paths[2])])
    assert failure is None and sizes.tolist() == [0, 5000]
    outs = [np.full(3, 9, np.uint8), np.zeros(5000, np.uint8)]
    assert files.read_into([None, str(paths[2])], outs, pool) is None
    assert outs[0].tolist() == [9, 9, 9] and outs[1].tobytes() == paths[2].read_bytes()


def test_missing_files_report_their_index_and_errno(paths, tmp_path, pool):
    names = [str(paths[1]), str(tmp_path / "nope.bin"), str(tmp_path / "neither.bin")]
    assert files.sizes(names) == (None, (1, errno.ENOENT))
    outs = [np.zeros(1, np.uint8), np.zeros(4, np.uint8), np.zeros(4, np.uint8)]
    assert files.read_into(names, outs, pool) == (1, errno.ENOENT, 0)


def test_files_that_changed_size(paths, pool):
    # 5000 bytes on disk: a buffer of 6000 gets 5000, one of 4000 finds more; the first such
    # file is reported (after the others were read, on a pool)
    names = [str(p) for p in paths]
    for size, expected in ((6000, (2, 0, 5000)), (4000, (2, 0, -1))):
        outs = [np.zeros(0, np.uint8), np.zeros(1, np.uint8), np.zeros(size, np.uint8),
                np.zeros(69999, np.uint8)]
        assert files.read_into(names, outs, pool) == expected


def test_buffers_are_checked(paths):
    with pytest.raises(ValueError, match="buffer 0 must be a C-contiguous uint8 array"):
        files.read_into([str(paths[1])], [np.zeros(4, np.uint8)[::2]])
    with pytest.raises(ValueError, match="one buffer per path"):
        files.read_into([str(paths[1])], [])


def test_paths_of_any_encoding(tmp_path):
    # file names are bytes to the system: names that are no valid UTF-8 work as str too
    name = b"caf\xe9.bin"
    (tmp_path / os.fsdecode(name)).write_bytes(b"abc")
    path = os.fsdecode(bytes(tmp_path) + b"/" + name)
    sizes, failure = files.sizes([path])
    assert failure is None and sizes.tolist() == [3]
    out = np.zeros(3, np.uint8)
    assert files.read_into([path], [out]) is None and out.tobytes() == b"abc"


def _open_fds():
    return len(os.listdir("/proc/self/fd"))


def test_open_files_equal_sizes_and_read_into(paths, pool):
    names = [None, *(str(p) for p in paths)]
    before = _open_fds()
    opened = files.open_files(names)
    assert opened.failure is None and opened.sizes.dtype == np.int64
    assert opened.sizes.tolist() == files.sizes(names)[0].tolist() == [0, 0, 1, 5000, 70000]
    outs = [np.full(n, 0xAB, np.uint8) for n in opened.sizes]
    assert opened.read_into(outs, pool) is None
    assert _open_fds() == before
    for p, out in zip(paths, outs[1:], strict=True):
        assert out.tobytes() == p.read_bytes()


def test_open_files_failures(paths, tmp_path, pool):
    before = _open_fds()
    names = [str(paths[1]), str(tmp_path / "nope.bin"), str(tmp_path / "neither.bin")]
    opened = files.open_files(names)
    assert opened.failure == (1, errno.ENOENT) and opened.sizes is None
    assert _open_fds() == before
    with pytest.raises(ValueError, match="could not all be opened"):
        opened.read_into([np.zeros(1, np.uint8)] * 3)
    # a directory opens and has a size; reading it fails as in read_into
    opened = files.open_files([str(tmp_path)])
    assert opened.failure is None
    out = [np.zeros(int(opened.sizes[0]), np.uint8)]
    assert opened.read_into(out, pool) == files.read_into([str(tmp_path)], out, pool)
    assert opened.read_into(out)[:2] == (0, errno.EISDIR)
    # files that changed size after they were opened; unread files are closed
    for size, expected in ((6000, (0, 0, 5000)), (4000, (0, 0, -1))):
        opened = files.open_files([str(paths[2]), str(paths[3])])
        assert opened.read_into([np.zeros(size, np.uint8), np.zeros(70000, np.uint8)], pool) \
            == expected
        assert _open_fds() == before
    opened = files.open_files([str(paths[2])])
    del opened
    assert _open_fds() == before


def test_read_ranges(tmp_path):
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    data_a, data_b = bytes(range(200)), bytes(range(100, 0, -1))
    a.write_bytes(data_a)
    b.write_bytes(data_b)
    paths = [str(a), str(a), None, str(b), str(a)]
    offsets = [10, 150, 0, 0, 0]
    outs = [np.empty(n, np.uint8) for n in (5, 50, 0, 100, 3)]
    assert files.read_ranges(paths, offsets, outs) is None
    assert outs[0].tobytes() == data_a[10:15]
    assert outs[1].tobytes() == data_a[150:200]
    assert outs[3].tobytes() == data_b
    assert outs[4].tobytes() == data_a[:3]


def test_read_ranges_of_adjacent_records(tmp_path):
    """Ranges that follow each other in a file (read together, in runs of at most 256), mixed
    with gaps, empty ranges and another file; a run that meets the end of the file reports
    the first range cut short with what it got."""
    rng = np.random.default_rng(3)
    data = rng.integers(0, 256, 20000, dtype=np.uint8).tobytes()
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(data)
    b.write_bytes(data[::-1])
    sizes = rng.integers(0, 90, 150).tolist()
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).tolist()
    offsets[100:] = [o + 7 for o in offsets[100:]]                  # a gap
    paths = [str(a)] * 150
    paths[120] = str(b)
    outs = [np.empty(n, np.uint8) for n in sizes]
    assert files.read_ranges(paths, offsets, outs) is None
    for p, o, n, out in zip(paths, offsets, sizes, outs, strict=True):
        src = data if p == str(a) else data[::-1]
        assert out.tobytes() == src[o:o + n]
    tail = [19990, 19995, 20000]                                    # the last one: past the end
    outs = [np.empty(5, np.uint8) for _ in tail]
    assert files.read_ranges([str(a)] * 3, [19985, 19990, 19995], outs) is None
    assert files.read_ranges([str(a)] * 3, tail, outs) == (2, 0, 0)
    assert files.read_ranges([str(a)] * 2, [19990, 19995],
                             [np.empty(5, np.uint8), np.empty(9, np.uint8)]) == (1, 0, 5)


def test_read_ranges_across_gaps(tmp_path):
    """Ranges with gaps between them (read in one call up to 8192 bytes apart, the gaps into a
    scratch sink, beyond that apart), going backwards, overlapping, with empty ranges and in
    runs longer than one call takes: each gets exactly its bytes."""
    rng = np.random.default_rng(8)
    data = rng.integers(0, 256, 1 << 20, dtype=np.uint8).tobytes()
    a = tmp_path / "a.bin"
    a.write_bytes(data)
    sizes = rng.integers(0, 300, 700)
    gaps = rng.choice([0, 1, 12, 500, 8192, 8193, 40000, -100, -5000], 700,
                      p=[0.3, 0.1, 0.2, 0.1, 0.05, 0.05, 0.05, 0.1, 0.05])
    offsets, pos = [], 0
    for n, g in zip(sizes.tolist(), gaps.tolist(), strict=True):
        pos = min(max(pos + g, 0), len(data) - n)
        offsets.append(pos)
        pos += n
    outs = [np.full(n, 7, np.uint8) for n in sizes.tolist()]
    assert files.read_ranges([str(a)] * len(outs), offsets, outs) is None
    for o, out in zip(offsets, outs, strict=True):
        assert out.tobytes() == data[o:o + out.size]
    # the end of the file inside a run with gaps: the first range cut short, with what it got
    outs = [np.empty(10, np.uint8) for _ in range(3)]
    end = len(data)
    assert files.read_ranges([str(a)] * 3, [end - 40, end - 15, end - 2], outs) == (2, 0, 2)
    assert outs[0].tobytes() == data[end - 40:end - 30]
    assert outs[1].tobytes() == data[end - 15:end - 5]
    assert files.read_ranges([str(a)] * 3, [end - 9000, end - 20, end - 4], outs) == (2, 0, 4)


def test_read_ranges_failures(tmp_path):
    a = tmp_path / "a.bin"
    a.write_bytes(bytes(10))
    assert files.read_ranges([str(a)], [8], [np.empty(5, np.uint8)]) == (0, 0, 2)
    missing = files.read_ranges([str(a), str(tmp_path / "no")], [0, 0],
                                [np.empty(1, np.uint8), np.empty(1, np.uint8)])
    assert missing == (1, errno.ENOENT, 0)
    with pytest.raises(ValueError, match="negative offset"):
        files.read_ranges([str(a)], [-1], [np.empty(1, np.uint8)])
    with pytest.raises(ValueError, match="one offset and one buffer"):
        files.read_ranges([str(a)], [0, 1], [np.empty(1, np.uint8)])


def test_read_heads_sizes_of_short_and_long_files(paths, tmp_path):
    names = [str(p) for p in paths]                   # 0, 1, 5000 and 70000 bytes
    heads, got, sizes, failure = files.read_heads(names, 4096)
    assert failure is None
    assert got.tolist() == [0, 1, 4096, 4096] and sizes.tolist() == [0, 1, 5000, 70000]
    for p, row, k in zip(paths, heads, got.tolist(), strict=True):
        assert row[:k].tobytes() == p.read_bytes()[:k]
    assert files.read_heads([names[2], str(tmp_path / "no")], 16)[3] == (1, errno.ENOENT)
    assert files.read_heads([str(tmp_path)], 16)[3] == (0, errno.EISDIR)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs setitimer")
def test_a_read_interrupted_by_a_signal_goes_on(tmp_path):
    """A pipe whose writer pauses: the caller's read is interrupted by SIGALRM (Python's
    handlers interrupt system calls) while it waits, and calls again instead of failing."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = bytes(range(256)) * 64

    def writer():
        with open(fifo, "wb", buffering=0) as f:
            f.write(data[:1000])
            time.sleep(0.3)
            f.write(data[1000:])

    alarms = []
    old = signal.signal(signal.SIGALRM, lambda *_: alarms.append(1))
    thread = threading.Thread(target=writer)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)
        thread.start()
        out = np.empty(len(data), np.uint8)
        assert files.read_into([str(fifo)], [out]) is None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        thread.join()
    assert alarms
    assert out.tobytes() == data
