"""external_source(parallel=True): callbacks in worker processes, the same batches as in the
main process, epochs, errors with the worker's traceback, dead workers reported, and nothing
left behind (processes, shared memory)."""

import gc
import multiprocessing
import os
import signal
import time

import numpy as np
import pytest

from dali import fn, pipeline_def
from dali.ops.python import _workers


def per_sample(info):
    if info.iteration >= 3:
        raise StopIteration
    return np.array([info.idx_in_epoch, info.idx_in_batch, info.iteration, info.epoch_idx,
                     os.getpid()], np.int64)


def per_batch(info):
    if info.iteration >= 2:
        raise StopIteration
    return [np.full((2,), info.iteration * 10 + j, np.int32) for j in range(4)], \
        np.arange(4, dtype=np.float32) + info.epoch_idx


def batches_gen():
    for i in range(2):
        yield [np.array([i, j], np.int16) for j in range(4)]


def failing(info):
    if info.idx_in_epoch == 5:
        raise KeyError("sample five is broken")
    return np.zeros(1)


def _pipe(source, workers=2, method="fork", parallel=True, **kwargs):
    @pipeline_def(batch_size=4, num_threads=1, device_id=None, py_num_workers=workers,
                  py_start_method=method)
    def pipe():
        out = fn.external_source(source=source, parallel=parallel, **kwargs)
        return tuple(out) if isinstance(out, list) else out

    return pipe()


def _epoch(p):
    out = []
    while True:
        try:
            out.append([[np.array(t).tolist() for t in tl] for tl in p.run()])
        except StopIteration:
            p.reset()
            return out


def _shm_segments():
    """This process's shared memory segments (their names begin with the creator's pid: other
    test runs on the machine have their own)."""
    mine = f"dali{os.getpid():x}_"
    return {name for name in os.listdir("/dev/shm") if name.startswith(mine)} \
        if os.path.isdir("/dev/shm") else set()


def test_samples_come_from_the_workers_in_order():
    p = _pipe(per_sample)
    for epoch in range(2):
        batches = _epoch(p)
        assert len(batches) == 3
        for it, (tl,) in enumerate(batches):
            assert [s[:4] for s in tl] == [[it * 4 + i, i, it, epoch] for i in range(4)]
            pids = {s[4] for s in tl}
            assert os.getpid() not in pids and pids <= set(p._worker_pool.pids)


def slow_sample(info):
    time.sleep(0.05)
    return np.array([info.idx_in_batch, os.getpid()], np.int64)


def test_mini_batches_go_to_the_free_workers():
    p = _pipe(slow_sample)            # a worker sleeping on one mini-batch leaves the other
    for _ in range(3):
        (tl,) = p.run()
        assert [int(np.array(s)[0]) for s in tl] == [0, 1, 2, 3]
        assert {int(np.array(s)[1]) for s in tl} == set(p._worker_pool.pids)


def test_batch_sources_and_generators_match_the_main_process():
    for source, extra in ((per_batch, {"num_outputs": 2, "batch": True, "batch_info": True}),
                          (batches_gen, {"batch": True})):
        serial_pipe = _pipe(source, parallel=False, **extra)
        serial = [_epoch(serial_pipe) for _ in range(2)]
        parallel = _pipe(source, **extra)
        assert [_epoch(parallel) for _ in range(2)] == serial


def test_callback_errors_carry_the_worker_traceback():
    p = _pipe(failing)          # the first run() prefetches two batches: samples 0 to 7
    with pytest.raises(_workers.WorkerError, match=r"raised KeyError: 'sample five is broken'"
                                                   r"\nin the worker process:\nTraceback") as e:
        p.run()
    assert "in failing" in str(e.value)
    with pytest.raises(_workers.WorkerError, match="stopped after an earlier error"):
        p.run()


def slow(info):
    time.sleep(0.2)
    return np.zeros(1)


def test_a_killed_worker_is_reported_quickly():
    p = _pipe(slow, prefetch_queue_depth=2)
    p.run()
    os.kill(p._worker_pool.pids[0], signal.SIGKILL)
    start = time.monotonic()
    with pytest.raises(_workers.WorkerError, match=r"exited with code -9"):
        for _ in range(5):
            p.run()
    assert time.monotonic() - start < 5.0


def test_nothing_is_left_behind():
    gc.collect()                             # the pipelines of earlier tests
    before = _shm_segments()
    p = _pipe(per_sample, prefetch_queue_depth=3)
    p.run()
    pids = p._worker_pool.pids
    del p
    deadline = time.monotonic() + 5.0        # a loaded machine may take a moment
    while time.monotonic() < deadline:       # the workers end and the segments go
        gc.collect()
        if not {c.pid for c in multiprocessing.active_children()} & set(pids) and \
                _shm_segments() == before:
            break
        time.sleep(0.05)
    assert not {c.pid for c in multiprocessing.active_children()} & set(pids)
    assert _shm_segments() == before
    p = _pipe(failing)
    with pytest.raises(_workers.WorkerError):
        for _ in range(3):
            p.run()
    assert all(not proc.is_alive() for proc in p._worker_pool.processes)
    assert _shm_segments() == before


def _local_source(offset):
    scale = np.int64(3)

    def source(info):                      # a closure over local values, using a module
        return np.array([info.idx_in_epoch * scale + offset], np.int64)
    return source


def test_spawn_sends_lambdas_and_local_functions():
    p = _pipe(per_sample, method="spawn", workers=1)
    assert [s[:2] for s in _epoch(p)[0][0]] == [[0, 0], [1, 1], [2, 2], [3, 3]]
    p = _pipe(_local_source(7), method="spawn", workers=2)
    assert [np.array(t).tolist() for t in p.run()[0]] == [[7], [10], [13], [16]]
    p = _pipe(lambda info: np.full((2,), info.idx_in_batch, np.uint8), method="spawn",
              workers=1)
    assert [np.array(t).tolist() for t in p.run()[0]] == [[0, 0], [1, 1], [2, 2], [3, 3]]
    lock = __import__("threading").Lock()
    with pytest.raises(RuntimeError, match="cannot be pickled"):
        _pipe(lambda info: lock and np.zeros(1), method="spawn").build()


def test_unsupported_setups():
    with pytest.raises(RuntimeError, match="at least one worker"):
        _pipe(per_sample, workers=0).build()
    with pytest.raises(TypeError, match="a callable without arguments"):
        _pipe(lambda: np.zeros(1)).build()
