"""Ctrl-C stops a pipeline between the thread pool's work items, not when a long nogil batch
call returns; the pipeline works afterwards, and a SIGINT handler that does not raise lets the
job finish with every item run once (docs/reliability.md, "Ctrl-C")."""

import gc
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from dali._ext.thread_pool import ThreadPool

from dali import fn, pipeline_def, types

BATCH = 12          # Lanczos resizes of about 90 ms each: about 0.5 s a batch on 2 threads


def _image(info):
    return np.full((2000, 2000, 3), info.idx_in_epoch % 251, np.uint8)


def _resize_pipe(exec_async, depth=2):
    @pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, exec_async=exec_async,
                  exec_pipelined=exec_async, prefetch_queue_depth=depth if exec_async else 1)
    def pipe():
        img = fn.external_source(source=_image, batch=False, layout="HWC")
        return fn.resize(img, resize_x=3000, resize_y=3000, interp_type=types.INTERP_LANCZOS3)

    p = pipe()
    p.build()
    return p


def _expected(iteration):
    """Every output of iteration `iteration` is a flat image of its sample's input value."""
    return [(iteration * BATCH + i) % 251 for i in range(BATCH)]


def _values(out):
    samples = [np.asarray(out[0][i]) for i in range(BATCH)]
    assert all(s.shape == (3000, 3000, 3) for s in samples)
    return [int(s[1500, 1500, 0]) for s in samples]


@pytest.fixture(autouse=True)
def _ctrl_c_raises():
    """Python's own SIGINT handler for these tests, also where the test run was started with
    SIGINT ignored (in the background of a non-interactive shell, as `nohup` does)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def _sigint_after(delay):
    """Sends SIGINT to the process after `delay` s; returns the timer and the send time."""
    sent = []

    def fire():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(delay, fire)
    timer.start()
    return timer, sent


def _interrupt_latency(p, delay):
    """Runs `p` until Ctrl-C; returns seconds from the signal to the KeyboardInterrupt."""
    timer, sent = _sigint_after(delay)
    deadline = time.perf_counter() + 30
    with pytest.raises(KeyboardInterrupt):
        try:
            while time.perf_counter() < deadline:
                p.run()
        finally:
            timer.join()
    return time.perf_counter() - sent[0]


@pytest.mark.parametrize("exec_async", [False, True], ids=["sync", "async"])
def test_ctrl_c_stops_a_long_batch_within_a_second(exec_async):
    p = _resize_pipe(exec_async)
    assert _values(p.run()) == _expected(0)
    start = time.perf_counter()
    p.run()
    batch_time = time.perf_counter() - start
    latency = _interrupt_latency(p, 0.1 * batch_time)
    assert latency < min(1.0, 0.5 * batch_time), (latency, batch_time)
    out = _values(p.run())          # the pipeline goes on: the next batch is a whole one
    assert out in [_expected(k) for k in range(1, 40)]


def test_a_handler_that_does_not_raise_lets_the_batch_finish():
    p = _resize_pipe(False)
    calls = []
    old = signal.signal(signal.SIGINT, lambda *a: calls.append(a[0]))
    try:
        start = time.perf_counter()
        assert _values(p.run()) == _expected(0)
        timer, _ = _sigint_after(0.3 * (time.perf_counter() - start))
        out = _values(p.run())
        timer.join()
    finally:
        signal.signal(signal.SIGINT, old)
    assert calls == [signal.SIGINT]
    assert out == _expected(1)


def test_map_resumes_every_item_exactly_once_after_a_non_raising_handler():
    pool = ThreadPool(2)
    count = np.zeros(400, np.int64)
    calls = []

    def item(i):
        time.sleep(0.002)
        count[i] += 1
        return i

    old = signal.signal(signal.SIGINT, lambda *a: calls.append(a[0]))
    try:
        timer, _ = _sigint_after(0.1)
        assert pool.map(item, 400) == list(range(400))
        timer.join()
    finally:
        signal.signal(signal.SIGINT, old)
    assert calls == [signal.SIGINT]
    assert count.tolist() == [1] * 400


def _sigint_blocked_threads():
    counts = 0
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{tid}/status") as f:
            blocked = next(line for line in f if line.startswith("SigBlk:"))
        counts += bool(int(blocked.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    return counts


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_pool_workers_block_sigint_and_the_caller_does_not():
    gc.collect()                    # no other pool's workers go away between the readings
    before = _sigint_blocked_threads()
    pool = ThreadPool(4)
    assert _sigint_blocked_threads() == before + 3
    assert not signal.pthread_sigmask(signal.SIG_BLOCK, []) & {signal.SIGINT}
    del pool


_EXIT_SCRIPT = """
import os, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler)    # also when started with it ignored
sys.path.insert(0, {tests!r})
from _pipeline.test_interrupt import _resize_pipe
p = _resize_pipe(True, depth=4)
p.run()
start = time.time()
for _ in range(3):
    p.run()
print((time.time() - start) / 3, flush=True)
def fire():
    print(time.time(), flush=True)
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer(0.1, fire).start()
while True:
    p.run()
"""


def test_async_background_iterations_stop_at_exit():
    """After an uncaught Ctrl-C the queued background iterations are abandoned: the process
    ends within three batch times (interpreter shutdown included, with room for a loaded
    machine), not after the four prefetched iterations (as it did before the thread pool
    stopped for shutdown)."""
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-c", _EXIT_SCRIPT.format(tests=tests)],
                          capture_output=True, text=True, timeout=60)
    end = time.time()
    assert proc.returncode != 0 and "KeyboardInterrupt" in proc.stderr, proc.stderr
    batch_time, sent = map(float, proc.stdout.split())
    assert end - sent < 3 * batch_time, (end - sent, batch_time)
