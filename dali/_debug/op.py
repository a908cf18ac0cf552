"""DebugOp: one operator instance of a debug pipeline, run at once at every call.

An instance is made at its call's first run with a spec built as in graph mode
(`_operator.make_spec`) and runs through the graph executor's entry point
(`dali._executor.executor.run_operator`), so both modes share every implementation.  Later
calls must look like the first: inputs and arguments of the same kind (batch or constant),
dtype, ndim and layout, and unchanged constant arguments.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _roles, tensors
from dali._debug import data_node as debug_node
from dali._debug import gpu_stage
from dali._executor import executor
from dali._gpu import runtime
from dali._graph import context, data_node
from dali._types import DALIDataType as T


def is_batch(value):
    """Whether an operator input is a batch: a DataNodeDebug, a TensorList or a list of arrays
    (anything else is a constant, broadcast to the batch)."""
    if isinstance(value, (debug_node.DataNodeDebug, tensors.TensorListCPU)):
        return True
    if isinstance(value, data_node.DataNode):
        raise TypeError(f"debug mode got a graph DataNode ({value.name}); only values computed "
                        "in this debug pipeline (DataNodeDebug), TensorLists and arrays can be "
                        "used as operator inputs")
    return (isinstance(value, list) and bool(value)
            and not any(isinstance(x, (int, float, bool, str)) for x in value))


def is_input_set(value):
    """Whether an operator input is a list of batches (multiple input sets)."""
    return (isinstance(value, list) and bool(value) and all(
        isinstance(x, (data_node.DataNode, tensors.TensorListCPU)) for x in value))


def _separate_args(schema, kwargs):
    """(constants, per-sample arguments) of a call, classified as in graph mode, with debug
    mode's batches (DataNodeDebugs, TensorLists, lists of arrays) as per-sample values."""
    return _operator.separate_args(
        schema, kwargs,
        lambda v: isinstance(v, (data_node.DataNode, tensors.TensorListCPU)) and is_batch(v),
        lambda v: isinstance(v, list) and is_batch(v))


class DebugOp:
    """One operator instance of a debug pipeline and the description of its first call.

    Parameters
    ----------
    ctx : dali._debug.context.DebugContext
        The debug pipeline's executor (thread pool, seeds, feeds waiting for a source).
    relation_id : int or None
        The first instance's, for the later instances of a call with multiple input sets.
    """

    def __init__(self, ctx, impl, inputs, kwargs, device, name, frames, relation_id):
        schema = impl.schema
        self.impl = impl
        self.ctx = ctx
        consts, batches = _separate_args(schema, kwargs)
        self.consts = consts
        self.batch_args = frozenset(batches)
        self.input_kinds = [is_batch(x) for x in inputs]
        nodes = [x for x in inputs if isinstance(x, data_node.DataNode)]
        device = _operator.choose_device(device, nodes)
        pipe = context.current_pipeline()
        op_id = pipe._next_op_id()
        self.name = name or pipe.auto_name(schema.class_name)
        self.relation_id = op_id if relation_id is None else relation_id
        self.device = "gpu" if device in ("gpu", "mixed") else "cpu"
        seed = None
        if "seed" in schema.arg_map:
            seed = ctx.seed(frames, schema.name, consts.get("seed"), self.relation_id)
        spec = _operator.make_spec(
            schema, self.name, device, consts, batches, seed=seed, origin=frames,
            max_batch_size=ctx.max_batch_size, num_threads=ctx.num_threads,
            device_id=ctx.device_id)
        if device != "cpu":
            runtime.check_operator(impl, device, ctx.device_id, frames)
        self.op = impl(spec)
        self.op.setup()
        self.meta = None

    def run(self, inputs, kwargs, state):
        """Run one call in the iteration `state` (a `dali._debug.iteration.IterationState`);
        returns what the call returns: DataNodeDebugs."""
        schema = self.impl.schema
        self._check_inputs(inputs)
        consts, batches = _separate_args(schema, kwargs)
        conditions = state.conditions
        if conditions is not None:
            _require_debug_nodes(self.name, inputs, batches)
            inputs, batches = conditions.preprocess(list(inputs), batches)
        self._check_args(consts, batches)
        self._feed(state)
        self._fix_batch_size(inputs, batches, state)
        root_ids = state.root_ids()
        ins = [self._as_batch(x, root_ids) for x in inputs]
        arg_ins = {k: self._as_batch(v, root_ids) for k, v in batches.items()}
        self._check_meta(ins, arg_ins)
        ins = [(gpu_stage.moved(tl, self._input_device(k), self.ctx.device_id), ids)
               for k, (tl, ids) in enumerate(ins)]
        outs = executor.run_operator(self.op, ins, arg_ins, state.batch_size, root_ids,
                                     state.index, state.epoch, self.ctx.thread_pool)
        if self.op.spec.device != "cpu":
            gpu_stage.finish(self.ctx.device_id)
        nodes = [debug_node.DataNodeDebug(tl, self.name if len(outs) == 1 else
                                          f"{self.name}[{i}]", self.device, self, ids)
                 for i, (tl, ids) in enumerate(outs)]
        if state.captured is not None:
            state.captured[id(self)] = (self.op.spec.origin, schema.name,
                                        [tl for tl, _ in outs])
        if conditions is not None:
            conditions.register(nodes, bool(
                [x for x in inputs if isinstance(x, data_node.DataNode)] or batches))
        return _operator.call_result(self.impl, consts, nodes)

    def _input_device(self, k):
        """Where positional input k is read: on the GPU for GPU operators (but their
        `gpu_host_inputs`), else on the host."""
        spec = self.op.spec
        gpu = spec.device == "gpu" and k not in spec.schema.gpu_host_inputs
        return "gpu" if gpu else "cpu"

    def _check_inputs(self, inputs):
        if len(inputs) != len(self.input_kinds):
            raise RuntimeError(
                f"Trying to use operator '{self.name}' with different number of inputs than "
                f"when it was built. Expected: {len(self.input_kinds)} inputs, got "
                f"{len(inputs)}.")
        kinds = [is_batch(x) for x in inputs]
        for i, (was, now) in enumerate(zip(self.input_kinds, kinds, strict=True)):
            if was != now:
                raise RuntimeError(
                    f"Input {i} for operator '{self.name}' is a "
                    f"{'batch' if now else 'constant'} but was a "
                    f"{'batch' if was else 'constant'} when created.")

    def _feed(self, state):
        """An external source's batch: from its callback, or given by `feed_input` before the
        operator existed."""
        early = self.ctx.take_feeds(self.name)
        if not isinstance(self.op, _roles.Source):
            if early:
                raise KeyError(f'Could not find an input operator with name "{self.name}"')
            return
        if self.op.has_callback:
            self.op.feed(self.op.callback_batch(state.epoch))
        for data, layout in early:
            self.op.feed(data, layout)

    def _check_args(self, consts, batches):
        if frozenset(batches) != self.batch_args or set(consts) != set(self.consts):
            raise RuntimeError(
                f"Trying to use operator '{self.name}' with different arguments than when it "
                f"was built. Expected: {sorted(set(self.consts) | self.batch_args)}, got "
                f"{sorted(set(consts) | set(batches))}.")
        for k, v in consts.items():
            # Python objects (callbacks) are re-created by every call of the pipeline function;
            # the instance keeps the first one.
            if self.impl.schema.arg_map[k].type == T.PYTHON_OBJECT:
                continue
            if not _same(v, self.consts[k]):
                raise RuntimeError(
                    f"Argument '{k}' for operator '{self.name}' unexpectedly changed value from "
                    f"'{self.consts[k]}' to '{v}'")

    def _fix_batch_size(self, inputs, batches, state):
        """Apply DALI's rule: the first external source that is fed, or the first batch input,
        fixes the iteration's batch size, the same for every operator outside conditional
        branches."""
        size = self.op.fed_batch_size() if isinstance(self.op, _roles.Source) else None
        if size is not None:
            state.fed(size, self.name)
            return
        conditions = state.conditions
        if (conditions is not None and len(conditions.entries) != 1) or \
                not self.impl.schema.same_batch_inputs:
            return
        for where, v in [*((f"Input {i}", x) for i, x in enumerate(inputs)),
                         *((f"Argument '{k}'", v) for k, v in batches.items())]:
            if is_batch(v):
                n = len(v.get() if isinstance(v, debug_node.DataNodeDebug) else v)
                state.batch_input(n, where, self.name)

    def _as_batch(self, x, root_ids):
        if isinstance(x, debug_node.DataNodeDebug):
            return x._data, x._ids
        if isinstance(x, tensors.TensorListCPU):
            return x, root_ids[: len(x)]
        if isinstance(x, list) and is_batch(x):
            tl = tensors.TensorListCPU([np.asarray(s) for s in x])
            return tl, root_ids[: len(tl)]
        arr = np.asarray(x)
        tl = tensors.TensorListCPU.broadcast(arr, len(root_ids))
        return tl, root_ids

    def _check_meta(self, ins, arg_ins):
        meta = [(f"Input {i}", tl.dtype, tl.ndim(), tl.layout()) for i, (tl, _) in
                enumerate(ins)] + [(f"Argument '{k}'", tl.dtype, tl.ndim(), tl.layout())
                                   for k, (tl, _) in sorted(arg_ins.items())]
        if self.meta is None:
            self.meta = meta
            return
        for was, now in zip(self.meta, meta, strict=True):
            for what, a, b in (("dtype", was[1], now[1]), ("ndim", was[2], now[2]),
                               ("layout", was[3], now[3])):
                if a != b:
                    raise RuntimeError(f"{now[0]} for operator '{self.name}' has {what} = {b}, "
                                       f"expected: {a}.")


def _require_debug_nodes(name, inputs, batches):
    """With conditionals, batches must come from operators (so they can be split)."""
    for where, v in [*[(f"at input {i}", x) for i, x in enumerate(inputs)],
                     *[(f"for argument '{k}'", v) for k, v in batches.items()]]:
        if is_batch(v) and not isinstance(v, debug_node.DataNodeDebug):
            raise ValueError(
                "Debug mode with conditional execution (when `enable_conditionals=True`) "
                "doesn't allow for modification of operator outputs by libraries other than "
                "DALI or using the TensorLists extracted via `.get()` as inputs. Expected "
                f"`DataNodeDebug` as an input, got {type(v)} {where} of operator '{name}'.")


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    try:
        return bool(np.all(np.asarray(a) == np.asarray(b))) and np.shape(a) == np.shape(b)
    except (TypeError, ValueError):
        return a is b
