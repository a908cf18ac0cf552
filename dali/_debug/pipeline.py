"""DebugPipeline: a Pipeline whose function runs eagerly at every iteration.

It reuses the Pipeline façade and its scheduler (API styles, StopIteration, reset) with one
change: an "iteration" is a call of the user's function inside the debug context, done in
`_iter_setup` (so a callback's StopIteration ends the data exactly as in graph mode), and no
iterations are prefetched, so the function's prints happen when the user calls `run()`.
"""

from __future__ import annotations

import numpy as np

from dali import _roles, tensors
from dali._autograph import conditional
from dali._debug import context as debug_context
from dali._debug import data_node as debug_node
from dali._ext import rng
from dali._ext.thread_pool import ThreadPool
from dali._graph import context
from dali._pipeline import pipeline as _pipeline


class DebugPipeline(_pipeline.Pipeline):
    """A pipeline in debug mode (see the module docstring).

    Parameters
    ----------
    func : callable
        The pipeline function with its arguments bound; called once per iteration.
    **kwargs
        Pipeline constructor arguments.
    """

    _background_runs = False     # the function runs on the caller's thread, when asked

    def __init__(self, func, seed_overrides=None, **kwargs):
        super().__init__(**kwargs)
        self._func = func
        self._ctx = debug_context.DebugContext(self)
        self._pending_feeds = {}
        self._seeded_ops = 0
        self._seed_overrides = dict(seed_overrides or {})
        self._site_counts = {}
        self._iteration = 0
        self._samples_seen = 0
        self._iter_batch_size = None
        self._batch_fixed_by = None
        self._iter_outputs = None
        self._executor = _EagerRunner(self)
        self._conditionals_enabled = False

    def __enter__(self):
        raise RuntimeError("Currently pipeline in debug mode works only with `pipeline_def` "
                           "decorator. Using `with` statement is not supported.")

    def build(self):
        if self._built:
            return
        if self._max_batch_size is None or self._max_batch_size < 1:
            raise ValueError("The batch size must be set.")
        if self._seed is None:
            self._seed = int(np.random.SeedSequence().entropy % (2 ** 63))
        self._thread_pool = ThreadPool(self._num_threads or 1)
        self._built = True

    def _prefetch_depth(self):
        return 1

    # -- one iteration ------------------------------------------------------------------------
    def _iter_setup(self):
        self._iter_batch_size = self._max_batch_size
        self._batch_fixed_by = None     # the operator that set this iteration's batch size
        self._ctx.begin_iteration()
        if self._conditionals_enabled:
            self._condition_stack = conditional.ConditionStack()
        context.push_pipeline(self)
        try:
            with self._ctx:
                res = self._func()
        finally:
            context.pop_pipeline()
        self._ctx.built = True
        if res is None:
            res = ()
        elif not isinstance(res, tuple):
            res = (res,)
        outs = []
        for i, val in enumerate(res):
            if isinstance(val, debug_node.DataNodeDebug):
                tl = val.get()
                if not tl._storage.is_contiguous:
                    tl = tensors.TensorListCPU._wrap(tl._storage.contiguous(), tl._layout,
                                                     tl._source_info)
                outs.append(tl)
            elif isinstance(val, (list, tuple)):
                raise TypeError(f"Illegal pipeline output type. The output {i} contains a "
                                "nested `DataNodeDebug`")
            else:
                arr = np.asarray(val)
                outs.append(tensors.TensorListCPU(
                    np.tile(arr, (self._iter_batch_size,) + (1,) * arr.ndim)))
        self._iter_outputs = outs
        self._samples_seen += self._iter_batch_size
        self._iteration += 1

    def _root_ids(self, batch_size):
        return np.arange(self._samples_seen, self._samples_seen + batch_size, dtype=np.int64)

    def _debug_seed(self, frames, op_name, given=None):
        """The seed of a new operator: `given` (an explicit one), else the graph twin's (by
        call site, see `context.site_key`) when `check_parity` gave them, else the next one
        derived from the pipeline seed.  Every call counts for the call-site keys."""
        key = debug_context.site_key(frames, op_name, self._site_counts)
        if given is not None:
            return given
        if key in self._seed_overrides:
            return self._seed_overrides[key]
        k = self._seeded_ops
        self._seeded_ops += 1
        return int(rng.derive_seeds(self._seed ^ 0x5DEB0C, k + 1)[k])

    # -- inputs and readers -------------------------------------------------------------------
    def feed_input(self, data_node, data, layout=None, cuda_stream=None,
                   use_copy_kernel=False):
        """Give an external_source its next batch.  Before the first `run()` creates the
        operators, the data waits for the operator of that name."""
        name = data_node.name if hasattr(data_node, "name") else data_node
        op = next((o for o in self._ctx.ops.values() if o.name == name), None)
        if op is None:
            if self._ctx.built:
                raise KeyError(f'Could not find an input operator with name "{name}"')
            self._pending_feeds.setdefault(name, []).append((data, layout))
            return
        if not isinstance(op.op, _roles.Source):
            raise KeyError(f'Could not find an input operator with name "{name}"')
        if op.op.has_callback:
            raise RuntimeError(f"Cannot use `feed_input` on the external source '{name}' with "
                               "a `source` argument specified.")
        op.op.feed(data, layout)

    def _readers(self):
        self.build()
        if not self._ctx.built:
            raise RuntimeError("In debug mode the operators are created by the first `run()`: "
                               "call it before asking for reader metadata (`reader_meta`, "
                               "`epoch_size`).")
        return {o.name: o.op for o in self._ctx.ops.values() if isinstance(o.op, _roles.Reader)}

    def reset(self):
        if self._sched.reset():
            self._samples_seen = 0
            for o in self._ctx.ops.values():
                o.op.reset_epoch(self._sched.epoch_idx)
                if isinstance(o.op, _roles.Source):
                    o.op.reset_callback(self._sched.epoch_idx)

    def executor_statistics(self):
        """Debug mode keeps no executor statistics: {}."""
        return {}

    def executor_timing(self, reset=False):
        """Debug mode keeps no operator timings: {}."""
        return {}

    def save_graph_to_dot_file(self, *args, **kwargs):
        raise RuntimeError("A debug-mode pipeline has no graph to save")


class _EagerRunner:
    """What the scheduler calls `run()` on: returns the outputs `_iter_setup` computed."""

    def __init__(self, pipe):
        self._pipe = pipe

    def run(self):
        outs, self._pipe._iter_outputs = self._pipe._iter_outputs, None
        return outs
