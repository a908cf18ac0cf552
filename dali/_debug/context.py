"""The debug context: the executor of a debug pipeline, and the call context its function
runs in.

Every operator call made while the pipeline function runs comes here and runs at once (a
`dali._debug.op.DebugOp`).  Operator instances are cached by call site and call position, as
in DALI: the key is the user's (file, line, function) of the call plus its index among this
iteration's calls.  The first iteration creates the instances (one that fails part-way keeps
those it made, so a retry reuses them); later iterations must make the same calls in the same
order.  Multiple input sets, operator specs and seeds go through the functions graph mode uses
(`_operator.call_input_sets`, `_operator.make_spec`, `dali._graph.seeds`).

To the Pipeline façade this is an executor like the graph one (`run`, `new_epoch`, `by_name`,
statistics); one iteration is `begin_iteration()`, the function's run inside `with ctx:`, and
`end_iteration(outputs)`.
"""

from __future__ import annotations

from dali import _operator
from dali._debug import iteration
from dali._debug import op as debug_op
from dali._executor import executor
from dali._ext.thread_pool import ThreadPool
from dali._graph import context, origin, seeds


def site_key(frames, op_name, counts):
    """(file, line, operator, n): the n-th call of operator `op_name` at the user's call site
    `frames[-1]`, counted in `counts`.  Graph and debug twins agree on these keys even where
    graph mode adds nodes debug mode does not have (constants for literal inputs)."""
    f = frames[-1] if frames else None
    site = (f.filename, f.lineno, op_name) if f else ("?", 0, op_name)
    n = counts.get(site, 0)
    counts[site] = n + 1
    return (*site, n)


class DebugContext(context.CallContext):
    """Runs the operator calls of a debug pipeline (see the module docstring).

    Parameters
    ----------
    max_batch_size, num_threads : int
    device_id : int or None
    seed : int
        The pipeline seed operator seeds derive from.
    seed_overrides : dict, optional
        Seeds by call site (`site_key`) for operators without an explicit `seed`: the graph
        twin's, given by `check_parity`.
    """

    staged = False      # one stage: operators run as they are called (executor.Executor)

    def __init__(self, max_batch_size, num_threads, device_id, seed, seed_overrides=None):
        self.max_batch_size = max_batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.thread_pool = ThreadPool(num_threads)
        self.ops = {}
        self.built = False           # the first iteration has run: no new instances
        self.iteration = 0
        self.epoch = 0
        self.state = None            # the current (or last) iteration's IterationState
        self._cursor = 0
        self._samples_seen = 0
        self._seeds = seeds.OperatorSeeds(seed)
        self._seed_overrides = dict(seed_overrides or {})
        self._site_counts = {}
        self._early_feeds = {}
        self._outputs = None

    # -- operator calls -----------------------------------------------------------------------
    def call(self, impl, inputs, kwargs, device, name):
        frames = origin.user_stack()
        f = frames[-1] if frames else None
        key = (f.filename, f.lineno, f.name, self._cursor) if f else ("?", 0, "?", self._cursor)
        self._cursor += 1

        def run(ins, nm, relation_id, index):
            op = self._instance(key if index is None else (*key, index), impl, ins, kwargs,
                                device, nm, frames, relation_id)
            return op.run(ins, kwargs, self.state), op.relation_id

        return _operator.call_input_sets(impl, inputs, name, debug_op.is_input_set, run)

    def _instance(self, key, impl, inputs, kwargs, device, name, frames, relation_id):
        if not self.built and key not in self.ops:
            self.ops[key] = debug_op.DebugOp(self, impl, inputs, kwargs, device, name, frames,
                                             relation_id)
        op = self.ops.get(key)
        if op is None or op.impl is not impl:
            raise RuntimeError(
                f"Unexpected operator '{impl.schema.name}'. Debug mode does not support "
                "changing the order of operators executed within the pipeline.")
        return op

    def seed(self, frames, op_name, explicit, relation_id):
        """The seed of a new operator: `explicit` when given, else the graph twin's (by call
        site) when `check_parity` gave them, else graph mode's rule in call order.  Every call
        counts for the call-site keys."""
        key = site_key(frames, op_name, self._site_counts)
        if explicit is None or explicit < 0:
            explicit = self._seed_overrides.get(key)
        return self._seeds.seed(explicit, relation_id)

    def defer_feed(self, name, data, layout):
        """Keep a `feed_input` batch for operator `name` until its first call creates it;
        False when no operator of that name can appear any more."""
        if self.built or name in self.by_name:
            return False
        self._early_feeds.setdefault(name, []).append((data, layout))
        return True

    def take_feeds(self, name):
        """The batches `defer_feed` kept for operator `name` (then forgotten)."""
        return self._early_feeds.pop(name, [])

    # -- the executor contract ----------------------------------------------------------------
    def begin_iteration(self, conditions=None, capture=False):
        """Start an iteration; returns its IterationState."""
        self._cursor = 0
        self.state = iteration.IterationState(
            self.iteration, self.epoch, self._samples_seen, self.max_batch_size,
            conditions=conditions, captured={} if capture else None)
        return self.state

    def end_iteration(self, outputs):
        """The function has run: keep its outputs (TensorLists) for `run()`."""
        self.built = True
        self._outputs = outputs
        self._samples_seen += self.state.batch_size
        self.iteration += 1

    def run(self):
        outs, self._outputs = self._outputs, None
        return outs

    def new_epoch(self):
        self.epoch += 1
        self._samples_seen = 0
        executor.start_epoch([o.op for o in self.ops.values()], self.epoch)

    @property
    def by_name(self):
        """The operator instances made so far, by name."""
        return {o.name: o.op for o in self.ops.values()}

    def memory_statistics(self):
        """Debug mode keeps no executor statistics: {}."""
        return {}

    def timing(self):
        """Debug mode keeps no operator timings: {}."""
        return {}

    def reset_timing(self):
        """Nothing to reset (see `timing`)."""
