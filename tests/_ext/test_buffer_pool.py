import threading

import numpy as np
import pytest
from dali._ext.buffer_pool import BufferPool, default_pool


def test_lease_is_writable_and_sized():
    pool = BufferPool()
    buf = pool.lease(1000)
    assert len(buf) == 1000 and buf.capacity == 1024 and buf.address % 64 == 0
    arr = np.frombuffer(buf, np.uint8)
    arr[:] = 7
    assert arr.sum() == 7000


def test_block_returns_when_last_view_goes():
    pool = BufferPool()
    buf = pool.lease(5000)
    view = np.frombuffer(buf, np.uint8)
    del buf
    assert pool.stats()["bytes_in_use"] == BufferPool.capacity_for(5000)
    del view
    s = pool.stats()
    assert s["bytes_in_use"] == 0 and s["bytes_cached"] == BufferPool.capacity_for(5000)


def test_steady_state_reuses_blocks():
    pool = BufferPool()
    for _ in range(3):
        bufs = [pool.lease(n) for n in (100, 3000, 70000, 65000)]
        del bufs
    assert pool.stats()["allocations"] == 4
    for _ in range(100):
        bufs = [pool.lease(n) for n in (100, 3000, 70000, 65000)]
        del bufs
    assert pool.stats()["allocations"] == 4
    assert pool.stats()["leases"] == 412


@pytest.mark.parametrize("n,cap", [(0, 256), (256, 256), (257, 320), (1025, 1280),
                                   (1536, 1536), (1537, 1792), (2049, 2560)])
def test_size_classes_quarter_octaves(n, cap):
    assert BufferPool.capacity_for(n) == cap


def test_cache_limit_frees_extra_blocks():
    pool = BufferPool(max_cached=4096)
    a, b = pool.lease(4000), pool.lease(4000)
    del a, b
    assert pool.stats()["bytes_cached"] == 4096
    pool.trim()
    assert pool.stats()["bytes_cached"] == 0


def test_negative_size_rejected():
    with pytest.raises(ValueError):
        BufferPool().lease(-1)


def test_concurrent_leases_from_threads():
    pool = BufferPool()
    errors = []

    def work(k):
        try:
            for i in range(300):
                b = pool.lease(100 + (i * 37 + k) % 5000)
                a = np.frombuffer(b, np.uint8)
                a[:] = k
                assert (a == k).all()
        except AssertionError as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert pool.stats()["bytes_in_use"] == 0


def test_default_pool_is_shared():
    assert default_pool() is default_pool()
