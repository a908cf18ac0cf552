"""Separate prefetch queues: the CPU and GPU stages on two threads, each queue's depth
honoured, errors kept with their iteration, and a staged pipeline's outputs and checkpoints
equal to the one-queue pipeline's."""

import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from dali import fn, pipeline_def, types
from dali._pipeline import stages


class _StageLog:
    """A stand-in executor whose stages record each time a stage starts with its queue full
    (the CPU stage: iterations whose CPU outputs no GPU stage has taken yet; the GPU stage:
    outputs not handed out yet); `fail_cpu` fails one iteration's CPU stage."""

    def __init__(self, cpu_size, gpu_size, fail_cpu=None):
        self.cpu_size, self.gpu_size = cpu_size, gpu_size
        self.fail_cpu = fail_cpu
        self.next = 0
        self.cpu_held, self.gpu_held = set(), set()
        self.violations = []
        self.lock = threading.Lock()

    def run_cpu_stage(self):
        with self.lock:
            i, self.next = self.next, self.next + 1
            if len(self.cpu_held) >= self.cpu_size:
                self.violations.append(("cpu", i, sorted(self.cpu_held)))
            self.cpu_held.add(i)
        time.sleep(0.002)
        if i == self.fail_cpu:
            with self.lock:
                self.cpu_held.discard(i)
            raise ValueError(f"iteration {i} failed")
        return i

    def run_gpu_stage(self, i):
        with self.lock:
            if len(self.gpu_held) >= self.gpu_size:
                self.violations.append(("gpu", i, sorted(self.gpu_held)))
            self.gpu_held.add(i)
        time.sleep(0.002)
        with self.lock:
            self.cpu_held.discard(i)
        return i

    def consumed(self, i):
        with self.lock:
            self.gpu_held.discard(i)


def _consume(log, n_queued, steps):
    """Queue `n_queued` iterations, then per step hand out the oldest and queue one more, as
    the Python API does; returns what each step got."""
    st = stages.Stages(log, log.cpu_size, log.gpu_size, checkpointing=False)
    queue = [st.submit([None]) for _ in range(n_queued)]
    got = []
    try:
        for i in range(steps):
            q = queue.pop(0)
            try:
                got.append(q.future.result(timeout=10))
            except ValueError as e:
                got.append(str(e))
            time.sleep(0.005)                   # a slow consumer: the stages run ahead
            log.consumed(i)
            st.handed_out(q)
            queue.append(st.submit([None]))
    finally:
        st.close()
    return got


@pytest.mark.parametrize("cpu_size,gpu_size", [(3, 1), (1, 3), (2, 2), (4, 2)])
def test_each_stage_keeps_to_its_queue_depth(cpu_size, gpu_size):
    log = _StageLog(cpu_size, gpu_size)
    got = _consume(log, max(cpu_size, gpu_size), 12)
    assert got == list(range(12)) and log.violations == []


def test_a_failed_cpu_stage_fails_its_iteration_only():
    log = _StageLog(2, 1, fail_cpu=3)
    got = _consume(log, 2, 8)
    assert got == [0, 1, 2, "iteration 3 failed", 4, 5, 6, 7] and log.violations == []


def test_close_releases_a_stage_waiting_for_room():
    log = _StageLog(1, 1)
    st = stages.Stages(log, 1, 1, checkpointing=False)
    first, second = st.submit([None]), st.submit([None])
    assert first.future.result(timeout=10) == 0       # never handed out: `second` waits
    st.close()
    with pytest.raises(stages.Closed, match="destroyed"):
        second.future.result(timeout=10)


def test_the_interpreter_exits_while_a_stage_waits_for_room():
    script = textwrap.dedent("""
        from dali._pipeline import stages

        class Executor:
            def run_cpu_stage(self):
                return 0

            def run_gpu_stage(self, staged):
                return staged

        st = stages.Stages(Executor(), 1, 1, checkpointing=False)
        first, second = st.submit([None]), st.submit([None])
        first.future.result()        # never handed out: the second GPU stage waits
        print("done")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60)
    assert (out.returncode, out.stdout) == (0, "done\n"), out.stderr


def _pipeline(depth, checkpoint=None, **kwargs):
    rng = np.random.default_rng(7)
    data = [rng.integers(0, 255, (6, 5, 3), dtype=np.uint8) for _ in range(12)]

    @pipeline_def(batch_size=3, num_threads=2, device_id=0, seed=11, exec_dynamic=False,
                  prefetch_queue_depth=depth, checkpoint=checkpoint, **kwargs)
    def pipe():
        jpegs = fn.external_source(source=lambda i: data[i.iteration % 4 * 3 + i.idx_in_batch],
                                   batch=False, batch_info=False, layout="HWC")
        mirror = fn.random.coin_flip(seed=3)
        cut = fn.random.uniform(range=(0.0, 1.0), seed=5)
        flipped = fn.flip(jpegs.gpu(), horizontal=mirror)
        return fn.cast(flipped, dtype=types.INT16), fn.cast(cut.gpu(), dtype=types.FLOAT64)

    p = pipe()
    p.build()
    return p


def _batches(p, n):
    return [[np.array(t.as_cpu()).copy() for t in p.run()] for _ in range(n)]


@pytest.mark.parametrize("depth", [{"cpu_size": 3, "gpu_size": 1},
                                   {"cpu_size": 1, "gpu_size": 3},
                                   {"cpu_size": 2, "gpu_size": 2}], ids=str)
def test_staged_pipeline_equals_one_queue(emulated_gpu, depth):
    staged = _pipeline(depth)
    assert staged._executor.staged
    plan = staged._executor.plan
    assert [n.spec.device for n in plan.nodes[:plan.split]] == ["cpu"] * plan.split
    assert {n.spec.device for n in plan.nodes[plan.split:]} == {"mixed", "gpu"}   # copies: mixed
    got = _batches(staged, 6)
    assert {t.name for t in threading.enumerate()} >= {"dali-cpu-stage_0", "dali-gpu-stage_0"}
    expected = _batches(_pipeline(2), 6)
    for g, e in zip(got, expected, strict=True):
        for x, y in zip(g, e, strict=True):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)


def test_staged_pipeline_resumes_from_its_checkpoints(emulated_gpu):
    depth = {"cpu_size": 3, "gpu_size": 1}
    pipe = _pipeline(depth, enable_checkpointing=True)
    cps, expected = [], []
    for _ in range(4):
        cps.append(pipe.checkpoint())
        expected.append(_batches(pipe, 1)[0])
    for cut in (1, 3):
        again = _pipeline(depth, checkpoint=cps[cut], enable_checkpointing=True)
        for e in expected[cut:]:
            for x, y in zip(_batches(again, 1)[0], e, strict=True):
                np.testing.assert_array_equal(x, y)


def test_cpu_only_pipeline_with_separate_queues_runs_in_one_stage():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, exec_dynamic=False,
                  prefetch_queue_depth={"cpu_size": 2, "gpu_size": 3})
    def pipe():
        return fn.random.uniform(range=(0.0, 1.0), seed=1, shape=(2,))

    p = pipe()
    p.build()
    assert not p._executor.staged and p._executor.plan.split == len(p._executor.plan.nodes)
    assert np.array(p.run()[0].as_tensor()).shape == (2, 2)
