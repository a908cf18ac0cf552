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
import numbers
import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from dali import _schema
from dali._gpu import dali_backends
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


def shapes_key(shapes, *extra):
    """A key of a batch's (n, ndim) shape array and `extra` (layout, type, ...): equal keys,
    equal shapes."""
    return (*extra, shapes.shape, shapes.tobytes())


class LastPlan:
    """What an operator worked out for its last batch (a Plan, or parts of one), kept for the
    next batch with the same key (`shapes_key`), while nothing else it depends on can change
    (no argument is an input).  A None key keeps nothing."""

    __slots__ = ("_key", "_value")

    def __init__(self):
        self._key = self._value = None

    def get(self, key):
        """The value kept for `key`, else None."""
        return self._value if key is not None and key == self._key else None

    def keep(self, key, value):
        """Keep `value` for `key` (not for None) and return it."""
        if key is not None:
            self._key, self._value = key, value
        return value


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

    @classmethod
    def output_names(cls, args):
        """Names of the outputs when a call returns them as a dict keyed by name
        (readers.tfrecord: one output per feature), else None."""
        return None

    @classmethod
    def check_call(cls, args, name) -> None:
        """Reject, when the call is recorded, argument combinations the operator cannot take
        (`args`: the given arguments, `name`: the instance name or None)."""

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


def make_spec(schema, name, device, consts, arg_inputs, *, seed, origin, max_batch_size,
              num_threads, device_id, node=None):
    """The OpSpec of a new operator instance, in graph and debug mode alike.

    Parameters
    ----------
    consts : dict
        The constant arguments given (converted); defaults are filled in for the others.
    arg_inputs : iterable of str
        Names of the arguments given as per-sample inputs.
    seed : int or None
        From `dali._graph.seeds.OperatorSeeds` (None for operators without `seed`).
    """
    return OpSpec(schema=schema, name=name, device=device, args=fill_defaults(schema, consts),
                  given=frozenset(consts) | frozenset(arg_inputs),
                  arg_inputs=tuple(sorted(arg_inputs)), seed=seed, origin=origin,
                  max_batch_size=max_batch_size, num_threads=num_threads, device_id=device_id,
                  node=node)


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
    _drop_seed(schema, kwargs)
    for k in kwargs:
        schema.check_arg_name(k)
    for i, x in enumerate(inputs):
        if not _input_like(x):
            raise TypeError(
                f"when calling operator `{schema.display_name}`: expected inputs of "
                "type 'DataNode', list of 'DataNode' or convertible to constant nodes. Received "
                f"input `{i}` of type '{type(x).__name__}'.")
    kwargs = schema.resolve_aliases(kwargs)
    impl.check_call(kwargs, name)
    ctx = context.current_context() or GRAPH
    return ctx.call(impl, list(inputs), kwargs, device, name)


def _drop_seed(schema, kwargs, stacklevel=4):
    """`seed=` given to an operator without randomness: DALI's DeprecationWarning, and the
    argument is dropped."""
    if "seed" in kwargs and "seed" not in schema.arg_map:
        del kwargs["seed"]
        warnings.warn('The argument "seed" should not be used with operators that don\'t use '
                      "random numbers.", DeprecationWarning, stacklevel=stacklevel)


def _input_like(x):
    """Whether `x` can be an operator input: a DataNode, a list of them (input sets), or a
    value a Constant node can hold (numbers, arrays, nested lists of numbers)."""
    if isinstance(x, (data_node.DataNode, numbers.Number, np.generic, np.ndarray)):
        return True
    if isinstance(x, (str, bytes, dict, set, frozenset)) or x is None:
        return False
    if isinstance(x, (list, tuple)):
        return all(_input_like(e) for e in x)
    return any(hasattr(x, a) for a in ("__array__", "__array_interface__", "__dlpack__",
                                       "__float__", "__index__"))


def call_input_sets(impl, inputs, name, is_set, call_one):
    """One operator call, or one per input set when some inputs are lists of batches (DALI's
    multiple input sets), in graph and debug mode alike.

    The i-th instance gets the i-th batch of every list (other inputs as they are), the name
    `name_i` (when named and there are several sets) and the relation id of the first instance,
    so that all share one seed; their outputs come back as lists over the sets.

    Parameters
    ----------
    is_set : callable
        Whether an input is a list of batches in the calling context.
    call_one : callable
        `call_one(inputs, name, relation_id, index)` makes one instance's call (`index` is None
        without input sets, `relation_id` None for the first instance) and returns its result
        and its relation id.
    """
    lengths = [len(x) for x in inputs if is_set(x)]
    if not lengths:
        return call_one(inputs, name, None, None)[0]
    count = lengths[0]
    if any(n != count for n in lengths):
        raise ValueError(
            f"Operator {impl.schema.display_name}: all lists of inputs (multiple input "
            f"sets) must have the same length, got {lengths}.")
    results = []
    relation = None
    for i in range(count):
        ins = [x[i] if is_set(x) else x for x in inputs]
        nm = None if name is None else (name if count == 1 else f"{name}_{i}")
        out, relation = call_one(ins, nm, relation, i)
        results.append(out)
    if results and isinstance(results[0], list):
        return [list(x) for x in zip(*results, strict=True)]
    return results


def call_result(impl, consts, outputs):
    """What an operator call returns: None, its only output, a list of outputs, or a dict of
    them by name (`Operator.output_names`)."""
    names = impl.output_names(consts)
    if names is not None:
        return dict(zip(names, outputs, strict=True))
    if impl.returns_list(consts):
        return list(outputs)
    if not outputs:
        return None
    return outputs[0] if len(outputs) == 1 else list(outputs)


def separate_args(schema, kwargs, is_node, is_batch_data=lambda value: False):
    """Split keyword arguments into constants (converted) and per-sample argument inputs.

    Per-sample are: values `is_node` accepts (a DataNode of the current context), values
    `is_batch_data` accepts given to an argument that takes per-sample values (debug mode's
    lists of arrays), and NumPy arrays of one or more dimensions given to such an argument when
    it is not a vector (DALI makes those constant nodes rather than scalars).  Per-sample values
    are returned as they are.  Raises the errors DALI raises for misuse.
    """
    consts, batches = {}, {}
    for k, v in kwargs.items():
        arg = schema.arg_map[k]
        if is_node(v):
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
        if arg.tensor and (is_batch_data(v) or (
                isinstance(v, np.ndarray) and v.ndim > 0 and not arg.is_vector)):
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
    """The device of a call: the one given, else "gpu" when an input is on the GPU."""
    if explicit is not None:
        return explicit
    return "gpu" if any(getattr(x, "device", "cpu") == "gpu" for x in inputs) else "cpu"


_detached_ids = itertools.count()


class GraphContext(context.CallContext):
    """Records operator calls as graph nodes (the default context)."""

    def call(self, impl, inputs, kwargs, device, name):
        frames = origin.user_stack()

        def record(ins, nm, relation_id, index):
            n = self._record(impl, ins, kwargs, device, nm, frames, relation_id)
            return call_result(impl, n.args, n.outputs), n.relation_id

        return call_input_sets(impl, inputs, name, lambda x: isinstance(x, list), record)

    def _record(self, impl, inputs, kwargs, device, name, frames, relation_id):
        schema = impl.schema
        consts, arg_nodes = separate_args(
            schema, kwargs, lambda v: isinstance(v, data_node.DataNode))
        inputs = [x if isinstance(x, data_node.DataNode) else self.constant(x) for x in inputs]
        arg_nodes = {k: v if isinstance(v, data_node.DataNode) else self.constant(v)
                     for k, v in arg_nodes.items()}
        device = choose_device(device, inputs)
        if device not in schema.devices and schema.cpu and not (
                schema.dali_schema_name in dali_backends.GPU and device == "gpu"
                or schema.dali_schema_name in dali_backends.MIXED and device == "mixed"):
            raise RuntimeError(
                f"Operator {schema.display_name} does not support the \"{device}\" backend; "
                f"it supports: {', '.join(schema.devices)}.")
        pipe = context.current_pipeline()
        conditions = pipe._condition_stack if pipe is not None else None
        if conditions is not None:
            inputs, arg_nodes = conditions.preprocess(inputs, arg_nodes)
        op_id = pipe._next_op_id() if pipe is not None else next(_detached_ids)
        n = node.OpNode(impl, op_id, name, device, consts, inputs, arg_nodes, frames, pipe,
                        relation_id)
        if conditions is not None:
            conditions.register(n.outputs, bool(inputs or arg_nodes))
        if pipe is not None:
            pipe._on_node_recorded(n)
        return n

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
        _drop_seed(self.schema, kwargs, stacklevel=3)
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
