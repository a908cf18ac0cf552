"""OpNode: one recorded operator call (an instance in DALI's terms)."""

from __future__ import annotations

import weakref

from dali._graph import data_node


class OpNode:
    """A call of an operator in a traced graph.

    Attributes
    ----------
    impl : type
        The `dali._operator.Operator` subclass that implements it.
    name : str
        Instance name: the `name=` given, or `__<Class>_<id>`.
    device : str
        "cpu", "gpu" or "mixed".
    args : dict
        Constant arguments the user gave (converted; defaults are not filled in).
    inputs : list of DataNode
    arg_inputs : dict of str -> DataNode
        Per-sample argument inputs, by argument name.
    outputs : list of DataNode
    origin : list of traceback.FrameSummary
        The user's stack where the operator was called.
    """

    __slots__ = ("id", "impl", "name", "auto_named", "device", "args", "inputs", "arg_inputs",
                 "outputs", "origin", "preserve", "relation_id", "_pipeline", "extra",
                 "__weakref__")

    def __init__(self, impl, op_id, name, device, args, inputs, arg_inputs, origin, pipeline,
                 relation_id=None):
        self.impl = impl
        self.id = op_id
        self.auto_named = name is None
        if name is None:
            name = (pipeline.auto_name(impl.schema.class_name) if pipeline is not None
                    else f"__{impl.schema.class_name}_detached_{op_id}")
        self.name = name
        self.device = device
        self.args = args
        self.inputs = list(inputs)
        self.arg_inputs = dict(arg_inputs)
        self.origin = origin
        self.preserve = bool(args.get("preserve", False)) or impl.schema.no_prune
        self.relation_id = op_id if relation_id is None else relation_id
        self._pipeline = weakref.ref(pipeline) if pipeline is not None else None
        self.extra = {}
        out_device = "gpu" if device in ("gpu", "mixed") else "cpu"
        n = impl.schema.num_outputs(args, len(self.inputs))
        self.outputs = [
            data_node.DataNode(name if n == 1 else f"{name}[{i}]", out_device, self, i)
            for i in range(n)]

    @property
    def schema(self):
        return self.impl.schema

    @property
    def pipeline(self):
        return self._pipeline() if self._pipeline is not None else None

    def all_inputs(self):
        """Positional inputs, then argument inputs sorted by argument name."""
        return self.inputs + [self.arg_inputs[k] for k in sorted(self.arg_inputs)]

    def __repr__(self):
        return f"<OpNode {self.name} ({self.schema.name}, {self.device})>"
