"""The executor: runs a built graph, one iteration per `run()`.

Build: one operator instance per graph node (with its seed derived from the pipeline seed in
topological order), `setup()` on each, then a `Plan` (`_ext/executor.pyx`): every edge gets a
slot, every node the slots it reads and writes, so an iteration is a compiled loop over the
nodes.  Per node: the workspace gets the input batches, `infer` says what to allocate, the
outputs are leased from the buffer pool, and `run_cpu` fills them (`run_operator`, also the
debug mode's entry point).  Each edge carries its batch and the epoch-relative ids of its
samples (what keys per-sample random streams).

This is the contract the pipeline façade drives (`run`, `new_epoch`, `by_name`, statistics;
debug mode's `dali._debug.context.DebugContext` keeps it too); the scheduling (prefetch
queues, API styles, StopIteration) lives in `dali._pipeline.scheduler`.  See
docs/executor.md.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _roles, tensors
from dali._executor import errors
from dali._ext import executor as _plan
from dali._ext.thread_pool import ThreadPool

run_operator = _plan.run_operator


def start_epoch(ops, epoch):
    """Tell operators a new epoch starts: their `reset_epoch`, and external sources with a
    callback start it again."""
    for op in ops:
        op.reset_epoch(epoch)
        if isinstance(op, _roles.Source) and op.has_callback:
            op.reset_callback(epoch)


def contiguous(tl):
    """A pipeline output as DALI returns it: one contiguous batch (copied only if needed)."""
    if tl._storage.is_contiguous:
        return tl
    return tensors.TensorListCPU._wrap(tl._storage.contiguous(), tl._layout, tl._source_info)


class Outputs(list):
    """The outputs of an iteration and the fences of its device work: the GPU stage of the
    iteration runs on while the executor goes on with the next one's CPU stage, and whoever
    hands the outputs out waits (`wait()`)."""

    def __init__(self, outs, fences=()):
        super().__init__(outs)
        self.fences = fences

    def wait(self):
        for f in self.fences:
            f.wait()
        return self


class _Staged:
    """An iteration between its CPU and GPU stages: its slots and what keys its samples."""

    __slots__ = ("slots", "batch_size", "root_ids", "iteration", "epoch")

    def __init__(self, slots, batch_size, root_ids, iteration, epoch):
        self.slots = slots
        self.batch_size = batch_size
        self.root_ids = root_ids
        self.iteration = iteration
        self.epoch = epoch


def _state(op):
    return op.checkpoint_state() if isinstance(op, _roles.Checkpointable) else None


class Snapshot:
    """The executor's state after an iteration (what a checkpoint keeps): its counters and
    the state of each operator (None for operators without state), in graph order."""

    __slots__ = ("iteration", "epoch", "samples", "op_states")

    def __init__(self, iteration, epoch, samples, op_states):
        self.iteration = iteration
        self.epoch = epoch
        self.samples = samples
        self.op_states = op_states


class Executor:
    """Runs the nodes of a `Graph` (see the module docstring).

    Parameters
    ----------
    graph : dali._graph.graph.Graph
    max_batch_size, num_threads : int
    device_id : int or None
    seed : int
        The pipeline seed operator seeds derive from.
    bytes_per_sample : int
        Output size hint (bytes per sample) for operators without `bytes_per_sample_hint`.
    memory_stats : bool
        Record the largest output sizes of every operator (`memory_statistics`).
    staged : bool
        Separate prefetch queues: an iteration can run as a CPU stage (`run_cpu_stage`) and
        then a GPU stage (`run_gpu_stage`, the mixed and GPU operators, with a thread pool of
        its own) on two threads, the next iteration's CPU stage beside this one's GPU stage.
        `staged` is then True when the graph has both stages.
    """

    def __init__(self, graph, max_batch_size, num_threads, device_id, seed,
                 bytes_per_sample=0, memory_stats=False, staged=False):
        self.graph = graph
        self.max_batch_size = max_batch_size
        seeds = graph.assign_seeds(seed)
        self.ops = []
        self.by_name = {}
        for n in graph.nodes:
            op = n.impl(_operator.make_spec(
                n.schema, n.name, n.device, n.args, n.arg_inputs, seed=seeds.get(n),
                origin=n.origin, max_batch_size=max_batch_size, num_threads=num_threads,
                device_id=device_id, node=n))
            self.ops.append(op)
            self.by_name[n.name] = op
        self.thread_pool = ThreadPool(num_threads)
        self.plan = _plan.Plan(graph, self.ops, bytes_per_sample or 0, staged)
        self.staged = 0 < self.plan.split < len(self.plan.nodes)
        self._gpu_pool = ThreadPool(num_threads) if self.staged else None
        self.plan.memory_stats = bool(memory_stats)
        self._devices = list({id(n.device): n.device for n in self.plan.nodes
                              if n.device is not None}.values())
        self._fed_ops = [op for op in self.ops if isinstance(op, _roles.Source)]
        self.iteration = 0
        self.epoch = 0
        self._samples_seen = 0

    def setup(self):
        for op in self.ops:
            try:
                op.setup()
            except errors.PipelineError:
                raise
            except Exception as e:
                raise errors.build_error(op.spec, e) from e

    def operator(self, name):
        return self.by_name[name]

    def new_epoch(self):
        """Start a new epoch: sample ids restart at 0; operators are told."""
        self.epoch += 1
        self._samples_seen = 0
        start_epoch(self.ops, self.epoch)

    def _iteration_batch_size(self):
        for op in self._fed_ops:
            bs = op.fed_batch_size()
            if bs is not None:
                return bs
        return self.max_batch_size

    def run(self):
        """Run one iteration; returns the pipeline outputs as contiguous TensorLists (an
        `Outputs` list: GPU outputs are complete once its `wait()` returned)."""
        outs = self._run(False)
        return Outputs([contiguous(tl) for tl in outs], outs.fences)

    def run_captured(self):
        """Run one iteration; returns every operator output, by `id()` of its DataNode."""
        return self._run(True)

    def _next_samples(self):
        """(batch size, root sample ids) of the next iteration."""
        bs = self._iteration_batch_size()
        return bs, np.arange(self._samples_seen, self._samples_seen + bs, dtype=np.int64)

    def _fences(self):
        return [dev.fence() for dev in self._devices]

    def _run(self, capture):
        bs, root_ids = self._next_samples()
        try:
            outs = self.plan.run(bs, root_ids, self.iteration, self.epoch, self.thread_pool,
                                 self.max_batch_size, capture)
            fences = self._fences()
            if capture:
                for f in fences:
                    f.wait()
                return outs
            return Outputs(outs, fences)
        finally:            # a failed iteration still used its samples: the next one goes on
            self.iteration += 1
            self._samples_seen += bs

    # -- separate queues (dali._pipeline.stages) ----------------------------------------------
    def run_cpu_stage(self):
        """The CPU operators of the next iteration (`staged` executors); returns what its GPU
        stage takes."""
        bs, root_ids = self._next_samples()
        staged = _Staged(self.plan.new_slots(), bs, root_ids, self.iteration, self.epoch)
        try:
            self.plan.run_range(staged.slots, 0, self.plan.split, bs, root_ids, staged.iteration,
                                staged.epoch, self.thread_pool, self.max_batch_size)
            return staged
        finally:
            self.iteration += 1
            self._samples_seen += bs

    def run_gpu_stage(self, staged):
        """The mixed and GPU operators of the iteration whose CPU stage returned `staged`;
        returns its outputs, as `run()` does."""
        plan = self.plan
        plan.run_range(staged.slots, plan.split, len(plan.nodes), staged.batch_size,
                       staged.root_ids, staged.iteration, staged.epoch, self._gpu_pool,
                       self.max_batch_size)
        return Outputs([contiguous(tl) for tl in plan.outputs(staged.slots)], self._fences())

    # -- checkpoints (dali._pipeline.checkpointing) ------------------------------------------
    def snapshot(self):
        """The state after the iterations run so far: counters and operator states."""
        return Snapshot(self.iteration, self.epoch, self._samples_seen,
                        [_state(op) for op in self.ops])

    def with_gpu_states(self, snapshot):
        """`snapshot` (taken after a CPU stage) with the states of the mixed and GPU
        operators now, after that iteration's GPU stage."""
        return Snapshot(snapshot.iteration, snapshot.epoch, snapshot.samples,
                        [state if op.spec.device == "cpu" else _state(op)
                         for op, state in zip(self.ops, snapshot.op_states, strict=True)])

    def restore(self, snapshot):
        """Take back the counters of `snapshot` (operator states: `checkpointing.restore`)."""
        self.iteration = snapshot.iteration
        self.epoch = snapshot.epoch
        self._samples_seen = snapshot.samples

    # -- statistics ---------------------------------------------------------------------------
    def memory_statistics(self):
        """DALI's `executor_statistics()`: per operator ("CPU_<name>"), the largest sizes of
        its outputs so far, one list entry per output."""
        result = {}
        for node in self.plan.nodes:
            stats = node.memory_statistics()
            if stats is not None:
                result[f"{node.spec.device.upper()}_{node.name}"] = stats
        return result

    def timing(self):
        """Per operator name: runs, total, mean and longest time (microseconds)."""
        return {node.name: node.timing() for node in self.plan.nodes}

    def reset_timing(self):
        self.plan.reset_timing()
