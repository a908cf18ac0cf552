"""DebugPipeline: a Pipeline whose function runs eagerly at every iteration.

It reuses the Pipeline façade (build, feed_input, reset, readers, statistics) and its scheduler
(API styles, StopIteration, reset) with two changes: its executor is the debug context
(`dali._debug.context.DebugContext`), and an "iteration" is a call of the user's function
inside that context, done in `_iter_setup` (so a callback's StopIteration ends the data exactly
as in graph mode).  No iterations are prefetched, so the function's prints happen when the user
calls `run()`.
"""

from __future__ import annotations

import functools

import numpy as np

from dali import tensors
from dali._autograph import conditional
from dali._debug import context as debug_context
from dali._debug import data_node as debug_node
from dali._executor import executor
from dali._graph import context
from dali._pipeline import pipeline as _pipeline


class DebugPipeline(_pipeline.Pipeline):
    """A pipeline in debug mode (see the module docstring).

    Parameters
    ----------
    definition : dali._debug.parity.Definition
        The pipeline function, its arguments and whether conditionals are enabled.
    seed_overrides : dict, optional
        Operator seeds by call site (see `DebugContext`).
    capture : bool
        Keep every operator's outputs of the last iteration (`captured_outputs`).
    **kwargs
        Pipeline constructor arguments.
    """

    _background_runs = False     # the function runs on the caller's thread, when asked

    def __init__(self, definition, seed_overrides=None, capture=False, **kwargs):
        super().__init__(**kwargs)
        self._func = functools.partial(definition.body, *definition.args,
                                       **definition.fn_kwargs)
        self._conditionals = definition.conditionals
        self._seed_overrides = seed_overrides
        self._capture = capture
        self._definition = definition        # check_parity() makes its twins from it

    def __enter__(self):
        raise RuntimeError("Currently pipeline in debug mode works only with `pipeline_def` "
                           "decorator. Using `with` statement is not supported.")

    def _make_executor(self, seed):
        return debug_context.DebugContext(self._max_batch_size, self._num_threads,
                                          self._device_id, seed, self._seed_overrides)

    def _prefetch_depth(self):
        return 1

    # -- one iteration ------------------------------------------------------------------------
    def _iter_setup(self):
        if self._conditionals:
            self._condition_stack = conditional.ConditionStack()
        ctx = self._executor
        state = ctx.begin_iteration(self._condition_stack, self._capture)
        context.push_pipeline(self)
        try:
            with ctx:
                res = self._func()
        finally:
            context.pop_pipeline()
        if res is None:
            res = ()
        elif not isinstance(res, tuple):
            res = (res,)
        outs = []
        for i, val in enumerate(res):
            if isinstance(val, debug_node.DataNodeDebug):
                outs.append(executor.contiguous(val.get()))
            elif isinstance(val, (list, tuple)) and any(
                    isinstance(x, debug_node.DataNodeDebug) for x in val):
                raise TypeError(f"Illegal pipeline output type. The output {i} contains a "
                                "nested `DataNodeDebug`")
            else:
                arr = _pipeline.output_array(i, val)
                outs.append(tensors.TensorListCPU(
                    np.tile(arr, (state.batch_size,) + (1,) * arr.ndim)))
        ctx.end_iteration(outs)

    def captured_outputs(self):
        """With `capture=True`: (origin, operator name, outputs) of every operator call of the
        last iteration, in call order."""
        return list(self._executor.state.captured.values())

    # -- inputs and readers -------------------------------------------------------------------
    def feed_input(self, data_node, data, layout=None, cuda_stream=None,
                   use_copy_kernel=False):
        """Give an external_source its next batch.  Before the first `run()` creates the
        operators, the data waits for the operator of that name."""
        self.build()
        name = data_node.name if hasattr(data_node, "name") else data_node
        if not self._executor.defer_feed(name, data, layout):
            super().feed_input(name, data, layout)

    def _readers(self):
        self.build()
        if not self._executor.built:
            raise RuntimeError("In debug mode the operators are created by the first `run()`: "
                               "call it before asking for reader metadata (`reader_meta`, "
                               "`epoch_size`).")
        return super()._readers()

    def save_graph_to_dot_file(self, *args, **kwargs):
        raise RuntimeError("A debug-mode pipeline has no graph to save")
