"""Separate prefetch queues: `prefetch_queue_depth={"cpu_size": C, "gpu_size": G}`.

As in DALI's separated executor, an iteration runs in two stages on two threads: the CPU
operators (`Executor.run_cpu_stage`), then the mixed and GPU operators (`run_gpu_stage`,
with a thread pool of their own, as DALI's mixed decoders have), so the next iteration's CPU
stage runs beside this one's GPU stage.  Each stage has its queue of buffers:

* the CPU stage runs at most C iterations ahead of the GPU stage: a CPU stage's outputs are
  held until the GPU stage of their iteration has run;
* the GPU stage runs at most G iterations ahead of the consumer: a GPU stage's outputs are
  held until `outputs()` has handed them out.

The Python API queues max(C, G) iterations at the start of an epoch and one per `outputs()`
(`dali._pipeline.scheduler`), so the smaller queue is the one that makes a stage wait.
Errors stay with their iteration: a failed CPU stage fails that iteration's future, whose GPU
stage then does not run.
"""

from __future__ import annotations

import concurrent.futures
import threading
import weakref


class Closed(RuntimeError):
    """The pipeline was dropped while a stage waited for room in its queue."""


class _Slots:
    """A counting semaphore that `close()` opens for good (a stage waiting when the pipeline
    goes away must not keep its thread, and the interpreter's exit, waiting)."""

    def __init__(self, n):
        self._free = n
        self._closed = False
        self._cond = threading.Condition()

    def acquire(self):
        with self._cond:
            while not self._free and not self._closed:
                self._cond.wait()
            if self._closed:
                raise Closed("the pipeline was destroyed")
            self._free -= 1

    def release(self):
        with self._cond:
            self._free += 1
            self._cond.notify()

    def close(self):
        with self._cond:
            self._closed = True
            self._cond.notify_all()


class Queued:
    """One queued iteration: its future (the GPU stage's outputs) and whether its GPU stage
    holds a slot of the GPU queue (given back when the outputs are handed out)."""

    __slots__ = ("future", "holds_gpu_slot")

    def __init__(self):
        self.future = None
        self.holds_gpu_slot = False


class Stages:
    """The two stage threads of a staged executor (`Executor.staged`) and their queues."""

    def __init__(self, executor, cpu_size, gpu_size, checkpointing):
        self._ex = executor
        self._cpu_slots = _Slots(cpu_size)
        self._gpu_slots = _Slots(gpu_size)
        self._checkpointing = checkpointing
        self._cpu = concurrent.futures.ThreadPoolExecutor(1, "dali-cpu-stage")
        self._gpu = concurrent.futures.ThreadPoolExecutor(1, "dali-gpu-stage")
        # At exit the interpreter joins the stage threads: one waiting for room in its queue
        # must be let go first (the hook concurrent.futures itself uses for its workers).
        ref = weakref.ref(self)
        threading._register_atexit(lambda: (s := ref()) is not None and s.close())

    def submit(self, held):
        """Queue the next iteration; `held[0]` gets its snapshot when checkpointing.  Returns
        its `Queued`."""
        q = Queued()
        cpu = self._cpu.submit(self._run_cpu, held)
        q.future = self._gpu.submit(self._run_gpu, cpu, q, held)
        return q

    def _run_cpu(self, held):
        self._cpu_slots.acquire()
        try:
            staged = self._ex.run_cpu_stage()
        except BaseException:
            self._cpu_slots.release()
            raise
        finally:
            if self._checkpointing:
                held[0] = self._ex.snapshot()
        return staged

    def _run_gpu(self, cpu, q, held):
        staged = cpu.result()                      # a CPU stage's error fails its iteration
        try:
            self._gpu_slots.acquire()
            q.holds_gpu_slot = True
            return self._ex.run_gpu_stage(staged)
        finally:
            self._cpu_slots.release()
            if self._checkpointing and held[0] is not None:
                held[0] = self._ex.with_gpu_states(held[0])

    def handed_out(self, q):
        """`q`'s outputs were handed out (or dropped): its GPU buffers are free again."""
        if q.holds_gpu_slot:
            q.holds_gpu_slot = False
            self._gpu_slots.release()

    def close(self):
        """Let waiting stages go (with `Closed`) and the threads end."""
        self._cpu_slots.close()
        self._gpu_slots.close()
        self._cpu.shutdown(wait=False)
        self._gpu.shutdown(wait=False)
