"""Operator base class and the one call path every operator call goes through.

`fn.resize(x, ...)`, `ops.Resize(...)(x)`, `x + 1` and `x[1:3]` all end in `call()`, which
validates the inputs and arguments against the schema and hands the call to the current context
(`dali._graph.context`): by default a graph context that records an `OpNode` and returns
DataNodes; in debug mode a context that runs the operator at once.

An operator implementation subclasses `Operator`; one instance exists per graph node.  The
executor (and the debug context) drive it in two phases per iteration:

1. `infer(ws) -> Plan`: per-sample output shapes, dtype and layout (`Plan.outputs`, so the
   executor can lease output buffers; shapes may be None when they cannot be known before
   running), plus whatever else the run needs for this batch;
2. `run_cpu(ws, plan)` / `run_gpu(ws, plan)`: fill `ws.outputs`.

What passes from the first phase to the second travels in the plan, never through attributes
of the operator: an instance holds only what `__init__`/`setup()` computed once, so running it
twice (or from the debug mode and a graph) cannot mix batches.  Optional roles (sources,
readers, region producers and consumers) are the classes of `dali._roles`, found by type.

Arguments are resolved per sample by the workspace (`ws.arg(name)`) and validated in Python
before any kernel runs.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from dali import _schema
from dali._graph import context, data_node, node, origin


@dataclass
class OutputDesc:
    """What `infer` says about one output: per-sample shapes (or None), dtype, layout, and the
    number of dimensions (needed only for an empty batch without a layout)."""

    shapes: Any
    dtype: Any
    layout: str = ""
    ndim: int | None = None


class Plan:
    """What `infer` hands to `run_cpu`/`run_gpu` for one batch.

    Parameters
    ----------
    outputs : list of OutputDesc
        One per output.
    **values
        Anything else the run needs (the layout chosen, resolved arguments, work lists...),
        readable as attributes: ``Plan(descs, layout="HWC").layout``.
    """

    def __init__(self, outputs, **values):
        self.outputs = outputs
        self.__dict__.update(values)

    def __repr__(self):
        return f"Plan({self.__dict__!r})"


@dataclass
class OpSpec:
    """Everything an operator instance knows about itself when it is created."""

    schema: _schema.Schema
    name: str
    device: str
    args: dict                       # every argument: given constants, else defaults
    given: frozenset                 # names of arguments the user gave (constants or inputs)
    arg_inputs: tuple = ()           # names of per-sample argument inputs
    seed: int | None = None
    origin: list = field(default_factory=list)
    max_batch_size: int = 1
    num_threads: int = 1
    device_id: int | None = None
    node: Any = None

    @property
    def display_name(self):
        return self.schema.display_name


class Operator:
    """Base of every operator implementation (see the module docstring)."""

    schema: ClassVar[_schema.Schema]

    def __init__(self, spec: OpSpec):
        self.spec = spec
        self.args = spec.args

    def setup(self):
        """Called once when the pipeline is built (e.g. a reader scans its files)."""

    def infer(self, ws) -> Plan:
        raise NotImplementedError

    def run_cpu(self, ws, plan: Plan):
        raise NotImplementedError(f"{self.spec.display_name} has no CPU implementation")

    def run_gpu(self, ws, plan: Plan):
        raise NotImplementedError(f"{self.spec.display_name} has no GPU implementation")

    def reset_epoch(self, epoch: int):
        """Called when the pipeline starts a new epoch (after StopIteration and reset())."""

    @classmethod
    def returns_list(cls, args) -> bool:
        """Whether a call with these constant arguments returns its outputs as a list even
        when there is one (external_source with an explicit `num_outputs`)."""
        return False

    def error(self, message, exc_type=ValueError):
        """An exception naming this operator (raise it from `infer`/`run`)."""
        return exc_type(f"{self.spec.display_name}: {message}")


def fill_defaults(schema, given: dict) -> dict:
    """Every argument's value: the given constants, else the schema defaults."""
    out = {}
    for a in schema.args:
        if a.name in given:
            out[a.name] = given[a.name]
        elif a.required:
            out[a.name] = None
        else:
            d = a.default
            out[a.name] = list(d) if isinstance(d, list) else d
    return out


# ---------------------------------------------------------------------------------------------
# The call path
# ---------------------------------------------------------------------------------------------

def call(impl, inputs, kwargs, init_kwargs=None, init_device=None):
    """Validate one operator call and hand it to the current context; returns its outputs."""
    schema = impl.schema
    kwargs = dict(kwargs)
    if schema.positional_args and len(inputs) > schema.max_inputs >= 0:
        extra = inputs[schema.max_inputs:]
        inputs = inputs[: schema.max_inputs]
        if len(extra) > len(schema.positional_args):
            raise TypeError(f"{schema.display_name} takes at most "
                            f"{len(schema.positional_args)} positional arguments")
        for pname, value in zip(schema.positional_args, extra, strict=False):
            if pname in kwargs:
                raise TypeError(f"{schema.display_name} got multiple values for argument "
                                f"'{pname}'")
            kwargs[pname] = value
    if init_kwargs:
        both = sorted(set(init_kwargs) & set(kwargs))
        if both:
            raise ValueError(
                f"Operator {schema.display_name}: argument `{both[0]}` was given both when the "
                "operator was created and when it was called.")
        kwargs = {**init_kwargs, **kwargs}
    device = kwargs.pop("device", None) or init_device
    name = kwargs.pop("name", None)
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    n = len(inputs)
    hi = schema.max_inputs
    if n < schema.min_inputs or (hi != -1 and n > hi):
        upper = "any number of" if hi == -1 else f"{hi}"
        raise ValueError(
            f"Operator {schema.display_name} expects from {schema.min_inputs} to {upper} "
            f"inputs, but received {n}.")
    for k in kwargs:
        schema.check_arg_name(k)
    kwargs = schema.resolve_aliases(kwargs)
    ctx = context.current_context() or GRAPH
    return ctx.call(impl, list(inputs), kwargs, device, name)


def separate_args(schema, kwargs, is_batch):
    """Split keyword arguments into constants (converted) and per-sample argument inputs.

    `is_batch(value)` tells whether a value is a batch of the current context (a DataNode in
    graph mode).  Raises the errors DALI raises for misuse.
    """
    consts, batches = {}, {}
    for k, v in kwargs.items():
        arg = schema.arg_map[k]
        if is_batch(v):
            if not arg.tensor:
                raise TypeError(
                    f"The argument `{k}` for operator `{schema.class_name}` "
                    f"({schema.display_name}) should not be a `DataNode` but a "
                    f"{arg.type_doc()}: it does not accept per-sample inputs.")
            if getattr(v, "device", "cpu") != "cpu":
                raise ValueError(
                    f'Invalid device "{v.device}" for argument \'{k}\' of operator '
                    f"'{schema.display_name}'. Named arguments must be on CPU.")
            batches[k] = v
            continue
        if arg.deprecated:
            warnings.warn(f"{schema.display_name}: argument `{k}`: {arg.deprecated}",
                          DeprecationWarning, stacklevel=4)
        value = arg.convert(v, schema.display_name)
        if not arg.implemented and value != arg.default:
            raise NotImplementedError(
                f"{schema.display_name}: argument `{k}` is not implemented yet in dali "
                f"(it is accepted only with its default value {arg.default!r}).")
        consts[k] = value
    return consts, batches


def choose_device(explicit, inputs):
    if explicit is not None:
        return explicit
    return "gpu" if any(getattr(x, "device", "cpu") == "gpu" for x in inputs) else "cpu"


_detached_ids = itertools.count()


class GraphContext(context.CallContext):
    """Records operator calls as graph nodes (the default context)."""

    def call(self, impl, inputs, kwargs, device, name):
        frames = origin.user_stack()
        mis = [len(x) for x in inputs if isinstance(x, list)]
        if mis:
            return self._multiple_input_sets(impl, inputs, kwargs, device, name, mis, frames)
        return self._record(impl, inputs, kwargs, device, name, frames)

    def _record(self, impl, inputs, kwargs, device, name, frames, relation_id=None):
        schema = impl.schema
        # A non-scalar array given to a per-sample scalar argument is an argument input (a
        # constant node), as in DALI: it is not converted to a scalar.
        arrays = {k: v for k, v in kwargs.items()
                  if isinstance(v, np.ndarray) and v.ndim > 0 and schema.arg_map[k].tensor
                  and not schema.arg_map[k].is_vector}
        consts, arg_nodes = separate_args(
            schema, {k: v for k, v in kwargs.items() if k not in arrays},
            lambda v: isinstance(v, data_node.DataNode))
        inputs = [x if isinstance(x, data_node.DataNode) else self.constant(x) for x in inputs]
        for k, v in arrays.items():
            arg_nodes[k] = self.constant(v)
        device = choose_device(device, inputs)
        if device not in schema.devices:
            raise RuntimeError(
                f"Operator {schema.display_name} does not support the \"{device}\" backend; "
                f"it supports: {', '.join(schema.devices)}.")
        pipe = context.current_pipeline()
        conditions = getattr(pipe, "_condition_stack", None)
        if conditions is not None:
            inputs, arg_nodes = conditions.preprocess(inputs, arg_nodes)
        op_id = pipe._next_op_id() if pipe is not None else next(_detached_ids)
        n = node.OpNode(impl, op_id, name, device, consts, inputs, arg_nodes, frames, pipe,
                        relation_id)
        if conditions is not None:
            conditions.register(n.outputs, bool(inputs or arg_nodes))
        hook = getattr(pipe, "_on_node_recorded", None)
        if hook is not None:
            hook(n)
        outs = n.outputs
        if impl.returns_list(consts):
            return list(outs)
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else list(outs)

    def _multiple_input_sets(self, impl, inputs, kwargs, device, name, lengths, frames):
        count = lengths[0]
        if any(n != count for n in lengths):
            raise ValueError(
                f"Operator {impl.schema.display_name}: all lists of inputs (multiple input "
                f"sets) must have the same length, got {lengths}.")
        results = []
        relation = None
        for i in range(count):
            ins = [x[i] if isinstance(x, list) else x for x in inputs]
            nm = None if name is None else (name if count == 1 else f"{name}_{i}")
            out = self._record(impl, ins, kwargs, device, nm, frames, relation)
            first = out[0] if isinstance(out, list) else out
            if relation is None and first is not None:
                relation = first.source.relation_id
            results.append(out)
        if results and isinstance(results[0], list):
            return [list(x) for x in zip(*results, strict=True)]
        return results

    @staticmethod
    def constant(value):
        """A non-DataNode input: becomes a Constant node on the CPU."""
        return data_node._call("constant", value)


GRAPH = GraphContext()


class OpsClass:
    """Base of the generated `dali.ops.*` classes: `ops.Resize(**args)(inputs, **args)`."""

    _impl: ClassVar[type]
    schema: ClassVar[_schema.Schema]

    def __init__(self, *, device="cpu", **kwargs):
        for k in kwargs:
            if k != "name":
                self.schema.check_arg_name(k)
        self._device = device
        self._init_kwargs = kwargs

    @property
    def device(self):
        return self._device

    def __call__(self, *inputs, **kwargs):
        return call(self._impl, inputs, kwargs, self._init_kwargs, self._device)
