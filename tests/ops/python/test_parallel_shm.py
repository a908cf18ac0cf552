"""external_source(parallel=True): the shared-memory chunks.  They are DALI's in number and
size at the start (external_source_shm_statistics() as DALI reports it), grow when samples do
not fit, are reused from batch to batch, are never reused while a view of them is held, and are
gone after the pipeline, an error, the interpreter's exit or a killed main process."""

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from dali import fn, pipeline_def
from dali.ops.python import _workers

MIB = 1 << 20


def sized(info):
    """Sample i of the epoch: i repeated (i % 5) * 100 + 1 times, as int32."""
    return np.full(((info.idx_in_epoch % 5) * 100 + 1,), info.idx_in_epoch, np.int32)


def big(info):
    return np.full((300_000,), info.idx_in_epoch, np.int32)        # 1.2 MB


def _pipe(source, workers=2, batch_size=4, queue=2, prefetch=1, hint=None, keep=None):
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None,
                  py_num_workers=workers, py_start_method="fork", prefetch_queue_depth=queue)
    def pipe():
        extra = {} if hint is None else {"bytes_per_sample_hint": hint}
        out = fn.external_source(source=source, parallel=True, batch=False,
                                 prefetch_queue_depth=prefetch, **extra)
        return out if keep is None else fn.python_function(out, function=keep)

    return pipe()


def _segments(pool=None):
    """The shared-memory segments in /dev/shm (of `pool`'s pipeline process only)."""
    names = os.listdir("/dev/shm")
    if pool is None:
        return set(names)
    return {n for n in names if n.startswith(f"dali{os.getpid():x}_")}


def _expected(iteration, batch_size=4):
    return [sized(type("I", (), {"idx_in_epoch": iteration * batch_size + i})())
            for i in range(batch_size)]


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="needs /dev/shm")
def test_chunks_are_reused_from_batch_to_batch():
    gc.collect()
    p = _pipe(sized)
    p.build()
    pool = p._worker_pool
    # DALI's initial pool: (pipeline queue 2 + source prefetch 1) x 2 mini-batches of 1 MiB,
    # 2 samples each
    assert p.external_source_shm_statistics() == {"capacities": [MIB] * 6,
                                                  "per_sample_capacities": [MIB // 2] * 6}
    counts = []
    for it in range(40):
        (out,) = p.run()
        assert [np.array(s).tolist() for s in out] == [s.tolist() for s in _expected(it)]
        counts.append(len(_segments(pool)))
    assert counts[-1] == counts[4] <= 8 and len(set(counts[4:])) == 1
    assert len(p.external_source_shm_statistics()["capacities"]) == counts[-1]


def test_bytes_per_sample_hint_sizes_the_chunks_and_chunks_grow():
    p = _pipe(sized, hint=MIB)               # 2 samples a chunk: 2 MiB
    p.build()
    assert p.external_source_shm_statistics()["per_sample_capacities"] == [MIB] * 6
    p = _pipe(big)                           # 2.4 MB do not fit in 1 MiB: twice the size
    (out,) = p.run()
    assert [int(np.array(s)[-1]) for s in out] == [0, 1, 2, 3]
    stats = p.external_source_shm_statistics()
    assert max(stats["capacities"]) == 2_400_256           # 2.4 MB up to 4 KiB pages
    assert [c // 2 for c in stats["capacities"]] == stats["per_sample_capacities"]


def test_held_views_are_never_overwritten():
    held = []

    def keep(x):                             # holds every sample (a view of a chunk)
        held.append(x)
        return x

    p = _pipe(sized, keep=keep, queue=1, prefetch=2)     # no iteration runs ahead
    for _ in range(12):
        p.run()
    assert len(held) == 12 * 4
    assert [x.tolist() for x in held] == [s.tolist() for it in range(12)
                                          for s in _expected(it)]
    grown = len(p.external_source_shm_statistics()["capacities"])
    assert grown >= 12 * 2                   # one chunk per held mini-batch
    held.clear()
    gc.collect()
    for it in range(12, 30):                 # released: reused, no new chunks
        (out,) = p.run()
        held.clear()
        assert [np.array(s).tolist() for s in out] == [s.tolist() for s in _expected(it)]
    assert len(p.external_source_shm_statistics()["capacities"]) == grown


def test_pool_views_keep_their_chunk_until_released():
    pool = _workers.WorkerPool([(sized, 1, False, "samples", "no", 0)], 1, "fork", [0], 4,
                               keep_alive=1)
    try:
        assert len(pool.statistics()["capacities"]) == 1
        first = pool.batch(0, 0, 0)[0]
        second = pool.batch(0, 1, 0)[0]      # the first chunk is held: a second one is made
        assert len(pool.statistics()["capacities"]) == 2
        assert [a.tolist() for a in first] == [s.tolist() for s in _expected(0)]
        assert [a.tolist() for a in second] == [s.tolist() for s in _expected(1)]
        del first
        pool.batch(0, 2, 0)                  # the first chunk again
        assert len(pool.statistics()["capacities"]) == 2
        assert [a.tolist() for a in second] == [s.tolist() for s in _expected(1)]
    finally:
        pool.close()


def test_nothing_is_left_after_an_error():
    def failing(info):
        if info.iteration == 3:
            raise ValueError("broken")
        return sized(info)

    gc.collect()
    before = _segments()
    p = _pipe(failing)
    with pytest.raises(_workers.WorkerError, match="broken"):
        for _ in range(5):
            p.run()
    assert _segments() == before


_CHILD = """
import os, signal, sys
import numpy as np
from dali import fn, pipeline_def

def source(info):
    return np.full((10,), info.idx_in_epoch, np.int16)

@pipeline_def(batch_size=4, num_threads=1, device_id=None, py_num_workers=2)
def pipe():
    return fn.external_source(source=source, parallel=True, batch=False)

p = pipe()
p.run()
names = [n for n in os.listdir("/dev/shm") if n.startswith(f"dali{os.getpid():x}_")]
print(len(names), flush=True)
if sys.argv[1] == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_nothing_is_left_after_exit_or_a_killed_main_process(how):
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_CHILD), how],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=120)
    assert int(out.split()[0]) == 6
    assert proc.returncode == (-signal.SIGKILL if how == "kill" else 0)
    prefix = f"dali{proc.pid:x}_"
    deadline = time.monotonic() + 10.0       # the resource tracker cleans up after a kill
    while time.monotonic() < deadline and any(n.startswith(prefix)
                                              for n in os.listdir("/dev/shm")):
        time.sleep(0.1)
    assert not [n for n in os.listdir("/dev/shm") if n.startswith(prefix)]


_FAILED_START = """
import multiprocessing.process, os
import numpy as np
from dali import fn, pipeline_def

start = multiprocessing.process.BaseProcess.start

def failing_start(self):                     # the second worker cannot be started
    if self.name.endswith("-1"):
        raise OSError("no more processes")
    start(self)

multiprocessing.process.BaseProcess.start = failing_start

@pipeline_def(batch_size=4, num_threads=1, device_id=None, py_num_workers=2)
def pipe():
    return fn.external_source(source=lambda info: np.zeros(1), parallel=True, batch=False)

try:
    pipe().build()
except OSError as e:
    print("error", e)
print(len([n for n in os.listdir("/dev/shm") if n.startswith(f"dali{os.getpid():x}_")]))
"""


def test_nothing_is_left_when_a_worker_cannot_start():
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_FAILED_START)],
                         capture_output=True, text=True, timeout=120)
    assert run.stdout.split("\n")[:2] == ["error no more processes", "0"], run.stderr[-2000:]


@pytest.mark.parametrize("workers, prefetch, hint", [(2, 2, None), (3, 1, 1_000_001)])
def test_statistics_match_real_dali(workers, prefetch, hint):
    real = pytest.importorskip("nvidia.dali")
    stats = []
    for pkg in (real, __import__("dali")):
        @pkg.pipeline_def(batch_size=5, num_threads=1, device_id=None, py_num_workers=workers,
                          py_start_method="fork")
        def pipe(pkg=pkg):
            extra = {} if hint is None else {"bytes_per_sample_hint": hint}
            return pkg.fn.external_source(source=sized, parallel=True, batch=False,
                                          prefetch_queue_depth=prefetch, **extra)

        p = pipe()
        p.build()
        stats.append(p.external_source_shm_statistics())
        del p
    assert stats[0] == stats[1]


_INTERRUPTED = """
import os, signal, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler)    # also when started with it ignored
import numpy as np
from dali import fn, pipeline_def

def slow(info):
    time.sleep(0.2)
    return np.array([info.idx_in_epoch], np.int64)

@pipeline_def(batch_size=4, num_threads=1, device_id=None, py_num_workers=2,
              prefetch_queue_depth=1)
def pipe():
    return fn.external_source(source=slow, parallel=True, batch=False)

p = pipe()
p.build()
threading.Timer(0.05, lambda: os.killpg(0, signal.SIGINT)).start()     # as a terminal does
try:
    p.run()
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted")
for _ in range(3):
    print([int(np.array(s)[0]) for s in p.run()[0]])
print(len(p._worker_pool._done), len(p.external_source_shm_statistics()["capacities"]))
"""


def test_ctrl_c_stops_only_the_main_process_and_keeps_the_batch():
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_INTERRUPTED)],
                         capture_output=True, text=True, timeout=120, start_new_session=True)
    assert run.stdout.splitlines() == ["interrupted", "[0, 1, 2, 3]", "[4, 5, 6, 7]",
                                       "[8, 9, 10, 11]", "0 4"], run.stderr[-2000:]


_INHERITED = """
import numpy as np
from dali import fn, pipeline_def

def source(info):
    return np.full((1000,), info.idx_in_epoch, np.int64)

def first_batch():                           # each pipeline is garbage once it returns
    @pipeline_def(batch_size=4, num_threads=1, device_id=None, py_num_workers=2)
    def pipe():
        return fn.external_source(source=source, parallel=True, batch=False)
    return [int(np.array(s)[0]) for s in pipe().run()[0]]

print([first_batch() == [0, 1, 2, 3] for _ in range(8)])
"""


def test_workers_leave_the_pools_they_inherit_alone():
    # a "fork" worker inherits the finalizers of the pools not collected yet, and its garbage
    # collection ran them: it tried to join other processes' workers and removed their
    # segments (the resource tracker then found names removed twice)
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_INHERITED)],
                         capture_output=True, text=True, timeout=300)
    assert run.stdout.splitlines() == [str([True] * 8)], run.stderr
    assert run.stderr == ""
