"""The debug call context: runs each operator call at once, through the graph executor's entry
point (`dali._executor.executor.run_operator`), so both modes share every implementation.

Operator instances are cached by call site and call position, as in DALI: the key is the user's
(file, line, function) of the call plus its index among this iteration's calls.  The first
iteration creates the instances (one that fails part-way keeps those it made, so a retry reuses
them); later iterations must make the same calls in the same order,
with inputs and arguments of the same kind (batch or constant), device, dtype, ndim and layout,
and unchanged constant arguments.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _roles, tensors
from dali._debug import data_node as debug_node
from dali._executor import executor
from dali._graph import context, data_node, origin
from dali._types import DALIDataType as T


def site_key(frames, op_name, counts):
    """(file, line, operator, n): the n-th call of operator `op_name` at the user's call site
    `frames[-1]`, counted in `counts`.  Graph and debug twins agree on these keys even where
    graph mode adds nodes debug mode does not have (constants for literal inputs)."""
    f = frames[-1] if frames else None
    site = (f.filename, f.lineno, op_name) if f else ("?", 0, op_name)
    n = counts.get(site, 0)
    counts[site] = n + 1
    return (*site, n)


def _is_batch(value):
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


def _is_input_set(value):
    """Whether an operator input is a list of batches (multiple input sets)."""
    return (isinstance(value, list) and bool(value) and all(
        isinstance(x, (data_node.DataNode, tensors.TensorListCPU)) for x in value))


def _separate_args(schema, kwargs):
    """(constants, per-sample arguments) of a call, classified as in graph mode: DataNodeDebugs
    and TensorLists are per-sample; so are lists of arrays and arrays of one or more dimensions
    given to an argument that accepts per-sample values but is not a vector (graph mode makes
    those constant nodes).  Other values, Python objects included, are constants."""
    extra = {}
    for k, v in kwargs.items():
        arg = schema.arg_map[k]
        if not arg.tensor or isinstance(v, (data_node.DataNode, tensors.TensorListCPU)):
            continue
        if (isinstance(v, list) and _is_batch(v)) or (
                isinstance(v, np.ndarray) and v.ndim > 0 and not arg.is_vector):
            extra[k] = v
    consts, batches = _operator.separate_args(
        schema, {k: v for k, v in kwargs.items() if k not in extra},
        lambda v: isinstance(v, (data_node.DataNode, tensors.TensorListCPU)) and _is_batch(v))
    batches.update(extra)
    return consts, batches


class DebugContext(context.CallContext):
    """Hands operator calls of a debug pipeline to its cached `DebugOp`s."""

    def __init__(self, pipe):
        self.pipe = pipe
        self.ops = {}
        self.cursor = 0
        self.built = False

    def begin_iteration(self):
        self.cursor = 0

    def call(self, impl, inputs, kwargs, device, name):
        frames = origin.user_stack()
        f = frames[-1] if frames else None
        key = (f.filename, f.lineno, f.name, self.cursor) if f else ("?", 0, "?", self.cursor)
        self.cursor += 1
        sets = [len(x) for x in inputs if _is_input_set(x)]
        if not sets:
            return self._instance(key, impl, inputs, kwargs, device, name, frames).run(
                inputs, kwargs)
        return self._input_sets(key, impl, inputs, kwargs, device, name, frames, sets)

    def _instance(self, key, impl, inputs, kwargs, device, name, frames, seed=None):
        if not self.built and key not in self.ops:
            self.ops[key] = DebugOp(self.pipe, impl, inputs, kwargs, device, name, frames, seed)
        op = self.ops.get(key)
        if op is None or op.impl is not impl:
            raise RuntimeError(
                f"Unexpected operator '{impl.schema.name}'. Debug mode does not support "
                "changing the order of operators executed within the pipeline.")
        return op

    def _input_sets(self, key, impl, inputs, kwargs, device, name, frames, lengths):
        """Multiple input sets (lists of batches as inputs): one instance per set, sharing a
        seed, as in graph mode; outputs are lists over the sets."""
        count = lengths[0]
        if any(n != count for n in lengths):
            raise ValueError(
                f"Operator {impl.schema.display_name}: all lists of inputs (multiple input "
                f"sets) must have the same length, got {lengths}.")
        results, seed = [], None
        for i in range(count):
            ins = [x[i] if _is_input_set(x) else x for x in inputs]
            nm = None if name is None else (name if count == 1 else f"{name}_{i}")
            op = self._instance((*key, i), impl, ins, kwargs, device, nm, frames, seed)
            seed = op.op.spec.seed
            results.append(op.run(ins, kwargs))
        if results and isinstance(results[0], list):
            return [list(x) for x in zip(*results, strict=True)]
        return results


class DebugOp:
    """One operator instance of a debug pipeline and the description of its first call."""

    def __init__(self, pipe, impl, inputs, kwargs, device, name, frames, shared_seed=None):
        schema = impl.schema
        self.impl = impl
        self.pipe = pipe
        consts, batches = _separate_args(schema, kwargs)
        self.consts = consts
        self.batch_args = frozenset(batches)
        self.input_kinds = [_is_batch(x) for x in inputs]
        nodes = [x for x in inputs if isinstance(x, data_node.DataNode)]
        device = _operator.choose_device(device, nodes)
        op_id = pipe._next_op_id()
        self.name = name or f"__{schema.class_name}_{op_id}"
        self.device = "gpu" if device in ("gpu", "mixed") else "cpu"
        seed = None
        if "seed" in schema.arg_map:
            explicit = consts.get("seed", -1)
            explicit = int(explicit) if explicit is not None and explicit >= 0 else None
            # Input sets share the first instance's seed.
            seed = pipe._debug_seed(frames, schema.name,
                                    explicit if shared_seed is None else shared_seed)
        spec = _operator.OpSpec(
            schema=schema, name=self.name, device=device,
            args=_operator.fill_defaults(schema, consts),
            given=frozenset(consts) | frozenset(batches), arg_inputs=tuple(sorted(batches)),
            seed=seed, origin=frames, max_batch_size=pipe.max_batch_size,
            num_threads=pipe.num_threads, device_id=pipe.device_id)
        if device != "cpu":
            raise RuntimeError(
                f"{schema.display_name}: debug mode runs on the CPU only here (no GPU backend "
                "is available)")
        self.op = impl(spec)
        self.op.setup()
        self.meta = None

    # -- per call -----------------------------------------------------------------------------
    def run(self, inputs, kwargs):
        pipe = self.pipe
        schema = self.impl.schema
        if len(inputs) != len(self.input_kinds):
            raise RuntimeError(
                f"Trying to use operator '{self.name}' with different number of inputs than "
                f"when it was built. Expected: {len(self.input_kinds)} inputs, got "
                f"{len(inputs)}.")
        kinds = [_is_batch(x) for x in inputs]
        for i, (was, now) in enumerate(zip(self.input_kinds, kinds, strict=True)):
            if was != now:
                raise RuntimeError(
                    f"Input {i} for operator '{self.name}' is a "
                    f"{'batch' if now else 'constant'} but was a "
                    f"{'batch' if was else 'constant'} when created.")
        consts, batches = _separate_args(schema, kwargs)
        conditions = getattr(pipe, "_condition_stack", None)
        if conditions is not None:
            _require_debug_nodes(self.name, inputs, batches)
            inputs, batches = conditions.preprocess(list(inputs), batches)
        if frozenset(batches) != self.batch_args or set(consts) != set(self.consts):
            raise RuntimeError(
                f"Trying to use operator '{self.name}' with different arguments than when it "
                f"was built. Expected: {sorted(set(self.consts) | self.batch_args)}, got "
                f"{sorted(set(consts) | set(batches))}.")
        for k, v in consts.items():
            # Python objects (callbacks) are re-created by every call of the pipeline function;
            # the instance keeps the first one.
            if schema.arg_map[k].type == T.PYTHON_OBJECT:
                continue
            if not _same(v, self.consts[k]):
                raise RuntimeError(
                    f"Argument '{k}' for operator '{self.name}' unexpectedly changed value from "
                    f"'{self.consts[k]}' to '{v}'")
        if isinstance(self.op, _roles.Source) and self.op.has_callback:
            self.op.feed(self.op.callback_batch(pipe._sched.epoch_idx))
        pending = pipe._pending_feeds.pop(self.name, None)
        if pending is not None:
            for data, layout in pending:
                self.op.feed(data, layout)
        root_bs = self._iteration_batch_size(inputs, batches, conditions)
        root_ids = pipe._root_ids(root_bs)
        ins = [self._as_batch(x, root_ids) for x in inputs]
        arg_ins = {k: self._as_batch(v, root_ids) for k, v in batches.items()}
        self._check_meta(ins, arg_ins)
        outs = executor.run_operator(self.op, ins, arg_ins, root_bs, root_ids,
                                     pipe._iteration, pipe._sched.epoch_idx,
                                     pipe._thread_pool)
        nodes = [debug_node.DataNodeDebug(tl, self.name if len(outs) == 1 else
                                          f"{self.name}[{i}]", self.device, self, ids)
                 for i, (tl, ids) in enumerate(outs)]
        capture = getattr(pipe, "_capture", None)
        if capture is not None:
            capture[id(self)] = (self.op.spec.origin, self.impl.schema.name,
                                 [tl for tl, _ in outs])
        if conditions is not None:
            conditions.register(nodes, bool(
                [x for x in inputs if isinstance(x, data_node.DataNode)] or batches))
        if self.impl.returns_list(consts):
            return nodes
        if not nodes:
            return None
        return nodes[0] if len(nodes) == 1 else nodes

    def _iteration_batch_size(self, inputs, batches, conditions):
        """The batch size of this iteration: fixed by the first external source that is fed, or
        the first batch input, and then the same for every operator outside conditional
        branches (DALI's rule; the pipeline's `max_batch_size` until something fixes it)."""
        pipe = self.pipe
        size = self.op.fed_batch_size() if isinstance(self.op, _roles.Source) else None
        if size is not None:
            if pipe._batch_fixed_by is not None and size != pipe._iter_batch_size:
                raise RuntimeError(
                    "Batch size must be uniform across an iteration. External Source operator "
                    f"returned batch size: {size}, expected: {pipe._iter_batch_size}.\nIf you "
                    "want to use variable batch size (that is different batch size in each "
                    "iteration) you must call all the external source operators at the "
                    "beginning of your debug pipeline, before other DALI operators.")
        elif (conditions is None or len(conditions.entries) == 1) and \
                self.impl.schema.same_batch_inputs:
            named = [*((f"Input {i}", x) for i, x in enumerate(inputs)),
                     *((f"Argument '{k}'", v) for k, v in batches.items())]
            for where, v in named:
                if not _is_batch(v):
                    continue
                n = len(v.get() if isinstance(v, debug_node.DataNodeDebug) else v)
                if pipe._batch_fixed_by is None:
                    pipe._iter_batch_size, pipe._batch_fixed_by = n, self.name
                elif n != pipe._iter_batch_size:
                    raise RuntimeError(
                        f"Batch size must be uniform across an iteration. {where} for operator "
                        f"'{self.name}' has batch size = {n}. Expected batch size = "
                        f"{pipe._iter_batch_size} from: '{pipe._batch_fixed_by}'.")
        if size is not None and pipe._batch_fixed_by is None:
            pipe._iter_batch_size, pipe._batch_fixed_by = size, self.name
        return pipe._iter_batch_size

    def _as_batch(self, x, root_ids):
        if isinstance(x, debug_node.DataNodeDebug):
            return x._data, x._ids
        if isinstance(x, tensors.TensorListCPU):
            return x, root_ids[: len(x)]
        if isinstance(x, list) and _is_batch(x):
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
        if _is_batch(v) and not isinstance(v, debug_node.DataNodeDebug):
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
