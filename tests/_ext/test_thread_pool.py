import threading

import numpy as np
import pytest
from dali._ext.thread_pool import ThreadPool


def test_map_returns_results_in_item_order():
    pool = ThreadPool(3)
    assert pool.map(lambda i: i * i, 50) == [i * i for i in range(50)]
    assert pool.map(lambda i: i, 0) == []


def test_map_follows_given_order_and_covers_every_item():
    pool = ThreadPool(2, inline_cost=1e12)   # inline: items run in the given order
    seen = []
    pool.map(seen.append, 5, order=np.array([4, 2, 0, 1, 3], np.int64))
    assert seen == [4, 2, 0, 1, 3]
    with pytest.raises(ValueError, match="every item"):
        pool.map(seen.append, 5, order=np.array([1, 2], np.int64))


def test_exceptions_propagate():
    pool = ThreadPool(2)
    with pytest.raises(ZeroDivisionError):
        pool.map(lambda i: 1 // (i - 7), 20)


def test_work_runs_on_several_threads():
    pool = ThreadPool(4)
    barrier = threading.Barrier(2, timeout=10)
    ids = set()

    def work(i):
        ids.add(threading.get_ident())
        if i < 2:
            barrier.wait()   # only passes if two items run at the same time
        return i

    assert pool.map(work, 8) == list(range(8))
    assert len(ids) >= 2


def test_submissions_from_several_threads():
    pool = ThreadPool(3)
    out = {}

    def client(k):
        out[k] = pool.map(lambda i: i * k, 200)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(out[k] == [i * k for i in range(200)] for k in range(6))


def test_rejects_bad_thread_count():
    with pytest.raises(ValueError):
        ThreadPool(0)
