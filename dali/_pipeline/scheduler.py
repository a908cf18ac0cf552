"""How a pipeline is driven: API styles, prefetching, end of data and reset.

This is DALI's Python scheduling, kept exactly (reference §2):

* `run()` is the BASIC API; `schedule_run()`/`share_outputs()`/`release_outputs()`/`outputs()`
  the SCHEDULED one; mixing them raises `RuntimeError("Mixing pipeline API type...")`.
* The first `schedule_run()` of an epoch on a pipelined executor prefetches: it runs `depth`
  iterations (each: feed inputs from the Python callbacks, then run); later calls run one.
  `run()` is `schedule_run()` + `outputs()`, so the first `run()` fills the queue and returns the
  first batch.
* A callback raising StopIteration marks the last iteration: scheduling stops, batches already
  queued still drain, then `outputs()` raises StopIteration.  `reset()` (only after that) starts
  a new epoch: callbacks restart and the next call prefetches again.
* An operator error is raised by the `outputs()` call that would have returned its batch, and
  costs that batch only: unlike DALI the pipeline stays usable, the next call returns the next
  batch, and the batches already queued are kept (`reset()` acts only after the last iteration,
  as in DALI, so it never discards them).
* An iteration interrupted (KeyboardInterrupt) while it is produced on the caller's thread is
  not counted: the queue and the count of batches to consume always agree.
* With `exec_async=True` iterations run on a background thread, in order, while the consumer
  works: the queue holds futures, and `outputs()` waits for the oldest.  Python callbacks still
  run on the caller's thread, before their iteration is queued.  With separate queues
  (`{"cpu_size", "gpu_size"}`) and both CPU and GPU operators, each iteration runs in two
  stages on two threads instead (`dali._pipeline.stages`).
* With checkpointing, each queued iteration carries the executor's snapshot taken right after
  it ran (on the thread that ran it); `outputs()` keeps the snapshot of the batch it returns,
  so `snapshot` is the state after the batches consumed, never the ones prefetched.
"""

from __future__ import annotations

import collections
import concurrent.futures
import weakref

from dali import _types
from dali._executor import executor
from dali._pipeline import stages


class Scheduler:
    """Queue of produced iterations and the counters DALI's Python API keeps."""

    def __init__(self, pipe):
        self._pipe = pipe
        self.api_type = None
        self.skip_api_check = False
        self.first_iter = True
        self.last_iter = False
        self.epoch_idx = 0
        self.consumer_iter = 0
        self.consumer_epoch_idx = 0
        self.batches_to_consume = 0
        self.ready = collections.deque()      # (future, [snapshot], Queued or None) per
                                              # queued iteration
        self.snapshot = None                  # executor state after the last batch consumed
        self._worker = None
        self._stages = None

    # -- API style ----------------------------------------------------------------------------
    def check_api(self, api):
        """Context manager: check `api` against the style in use; nested checks are skipped."""
        if not self.skip_api_check:
            if self.api_type is None:
                self.api_type = api
            if api != self.api_type:
                raise RuntimeError(
                    f"Mixing pipeline API type. Currently used: "
                    f"PipelineAPIType.{self.api_type.name}, but trying to use "
                    f"PipelineAPIType.{api.name}")
        return _ApiScope(self)

    # -- producing ----------------------------------------------------------------------------
    def schedule_run(self):
        pipe = self._pipe
        with self.check_api(_types.PipelineAPIType.SCHEDULED):
            if self.first_iter and pipe.exec_pipelined:
                self._prefetch()
            else:
                self._run_once()

    def _prefetch(self):
        pipe = self._pipe
        for _ in range(pipe._prefetch_depth()):
            self.first_iter = False
            try:
                pipe._iter_setup()
            except StopIteration:
                self.last_iter = True
                break
            self._produce()

    def _run_once(self):
        if self.last_iter:
            return
        try:
            self._pipe._iter_setup()
        except StopIteration:
            self.last_iter = True
            return
        self._produce()

    def _produce(self):
        """Run (or queue) one iteration; counted once its future is in the queue."""
        ex = self._pipe._executor
        run, held, queued = ex.run, [None], None
        if self._pipe._enable_checkpointing:
            def run():
                try:
                    return ex.run()
                finally:
                    held[0] = ex.snapshot()
        if ex.staged:
            queued = self._staged().submit(held)
            future = queued.future
        elif self._pipe.exec_async and self._pipe._background_runs:
            future = self._background().submit(run)
        else:
            future = concurrent.futures.Future()
            try:
                future.set_result(run())
            except Exception as e:  # delivered by the outputs() call for this iteration
                future.set_exception(e)
        self.ready.append((future, held, queued))
        self.batches_to_consume += 1

    def _background(self):
        if self._worker is None:
            self._worker = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="dali-executor")
            weakref.finalize(self, self._worker.shutdown, wait=False)
        return self._worker

    def _staged(self):
        if self._stages is None:
            pipe = self._pipe
            self._stages = stages.Stages(pipe._executor, pipe._cpu_queue_size,
                                         pipe._gpu_queue_size, pipe._enable_checkpointing)
            weakref.finalize(self, self._stages.close)
        return self._stages

    # -- consuming ----------------------------------------------------------------------------
    def outputs(self):
        with self.check_api(_types.PipelineAPIType.SCHEDULED):
            self.consumer_iter += 1
            if self.batches_to_consume == 0:
                raise StopIteration
            self.batches_to_consume -= 1
            return self._pop()

    def _pop(self):
        future, held, queued = self.ready.popleft()
        try:
            outs = future.result()
            if isinstance(outs, executor.Outputs):      # GPU outputs complete before use
                outs.wait()
            return tuple(self._pipe._check_outputs(outs))
        finally:
            if queued is not None:
                self._stages.handed_out(queued)
            if held[0] is not None:
                self.snapshot = held[0]

    def release_outputs(self):
        with self.check_api(_types.PipelineAPIType.SCHEDULED):
            return None

    # -- epochs -------------------------------------------------------------------------------
    def reset(self):
        """After the last iteration: start a new epoch (returns True).  Otherwise nothing
        happens (False), as in DALI; in particular after an operator error the batches already
        queued stay queued, so no good batch is skipped."""
        if not self.last_iter:
            return False
        self.first_iter = True
        self.last_iter = False
        self.epoch_idx += 1
        if self.consumer_iter > 0:
            self.consumer_epoch_idx += 1
            self.consumer_iter = 0
        return True

    def empty(self):
        return self.batches_to_consume == 0

    def drop_queued(self):
        """Forget the queued iterations (waiting for those running) and start as a new epoch
        would: the next schedule_run prefetches again."""
        while self.ready:
            future, _, queued = self.ready.popleft()
            concurrent.futures.wait([future])
            if queued is not None:
                self._stages.handed_out(queued)
        self.batches_to_consume = 0
        self.first_iter = True
        self.last_iter = False


class _ApiScope:
    def __init__(self, sched):
        self._sched = sched

    def __enter__(self):
        self._old = self._sched.skip_api_check
        self._sched.skip_api_check = True

    def __exit__(self, *exc):
        self._sched.skip_api_check = self._old
        return False
