"""Per-sample `if`, `and`, `or`, `not` on DataNodes: split inputs, trace both branches, merge.

The converter (`dali._autograph.converter`) turns `if c: ...` into `runtime.if_stmt(...)`; for a
DataNode condition the runtime calls `data_node_if` below.  While a pipeline function with
conditionals is traced, its pipeline holds a `ConditionStack`:

* the stack has one entry per enclosing branch (predicate, which branch), the bottom entry being
  the whole batch;
* every operator output is registered in the entry of the branch that produced it; operators
  with no DataNode inputs (readers, random generators) run on the whole batch, so their outputs
  go to the bottom entry;
* when an operator in a branch uses a DataNode from an outer entry, the node is split
  (`_conditional.split` with the entry's predicate) once per level down to the current branch;
  both branches of one `if` share the split;
* after both branches are traced, every variable live after the statement is merged
  (`_conditional.merge`) from its true-branch and false-branch values.

So a branch's operators run only on the samples that take it, inputless operators always see the
full batch, and the merged outputs have the full batch size.  The same code runs in debug mode,
where the split and merge operators execute at once.
"""

from __future__ import annotations

from dali import _operator, _registry
from dali._autograph import runtime
from dali._graph import context, data_node

_GPU_LOGICAL = ("Logical expression `{}` is restricted to scalar (0-d tensors) inputs of `bool` "
                "type, that are placed on CPU. Got a GPU input as the {} argument in logical "
                "expression.")


class _Entry:
    __slots__ = ("predicate", "branch", "produced", "splits")

    def __init__(self, predicate, branch, splits):
        self.predicate = predicate
        self.branch = branch
        self.produced = {}
        self.splits = splits


class ConditionStack:
    """Branch scopes of the conditional statements being traced (see the module docstring)."""

    def __init__(self):
        self.entries = [_Entry(None, None, {})]
        self.active = True

    # -- hooks the call contexts use ----------------------------------------------------------
    def preprocess(self, inputs, arg_inputs):
        """Bring the DataNode inputs of an operator call into the current branch."""
        if len(self.entries) == 1 or not self.active:
            return inputs, arg_inputs
        return ([self.bring(x) if isinstance(x, data_node.DataNode) else x for x in inputs],
                {k: self.bring(v) for k, v in arg_inputs.items()})

    def register(self, outputs, had_inputs):
        """Record where an operator's outputs live (the current branch, or the whole batch for
        an operator without DataNode inputs)."""
        if not self.active:
            return
        entry = self.entries[-1] if had_inputs else self.entries[0]
        for o in outputs:
            entry.produced[id(o)] = o

    # -- scopes -------------------------------------------------------------------------------
    def push(self, predicate, branch, splits):
        self.entries.append(_Entry(predicate, branch, splits))

    def pop(self):
        self.entries.pop()

    def _level(self, node):
        for i in range(len(self.entries) - 1, -1, -1):
            if id(node) in self.entries[i].produced:
                return i
        return 0

    def bring(self, node):
        """`node` restricted to the samples of the current branch (split level by level)."""
        for i in range(self._level(node) + 1, len(self.entries)):
            e = self.entries[i]
            pair = e.splits.get(id(node))
            if pair is None:
                pair = self._internal(_registry.get("_conditional.split"), (node,),
                                      {"predicate": e.predicate, "_if_stmt": True})
                e.splits[id(node)] = (node, pair)
            else:
                pair = pair[1]
            node = pair[0] if e.branch else pair[1]
            e.produced[id(node)] = node
        return node

    def _internal(self, impl, inputs, kwargs):
        self.active = False
        try:
            return _operator.call(impl, inputs, kwargs)
        finally:
            self.active = True

    def merge(self, true_node, false_node, predicate):
        out = self._internal(_registry.get("_conditional.merge"), (true_node, false_node),
                             {"predicate": predicate})
        self.entries[-1].produced[id(out)] = out
        return out

    def close_branch(self, values):
        """Branch outputs as DataNodes of the current branch (Python values become constants)."""
        return _map(lambda v: self.bring(
            v if isinstance(v, data_node.DataNode) else data_node._call("constant", v)),
            values)


def current_stack():
    pipe = context.current_pipeline()
    stack = getattr(pipe, "_condition_stack", None)
    if stack is None:
        raise RuntimeError("a DataNode condition was used outside a pipeline with "
                           "enable_conditionals=True")
    return stack


def _map(f, *values):
    """`f` applied leaf-wise over equally nested tuples, lists, dicts (None is structure)."""
    v = values[0]
    if v is None:
        return None
    if isinstance(v, dict):
        return type(v)((k, _map(f, *(x[k] for x in values))) for k in v)
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return type(v)(*(_map(f, *xs) for xs in zip(*values, strict=True)))
    if isinstance(v, (tuple, list)):
        return type(v)(_map(f, *xs) for xs in zip(*values, strict=True))
    return f(*values)


def _check_condition(pred):
    if pred.device != "cpu":  # DALI's error, from the split of the condition
        split = _registry.get("_conditional.split").schema.display_name
        raise ValueError(f'Invalid device "{pred.device}" for argument \'predicate\' of operator '
                         f"'{split}'. Named arguments must be on CPU.")


def data_node_if(pred, body, orelse, get_state, set_state, symbol_names, nouts):
    """`if pred: body() else: orelse()` per sample, for a DataNode `pred`."""
    stack = current_stack()
    _check_condition(pred)
    pred = stack.bring(pred)
    initial = get_state()
    splits = {}
    results = []
    for branch, run in ((True, body), (False, orelse)):
        set_state(initial)
        stack.push(pred, branch, splits)
        try:
            run()
            state = tuple(get_state())
            runtime.check_branch(state, symbol_names, nouts, "if" if branch else "else")
            results.append(stack.close_branch(state[:nouts]))
        finally:
            stack.pop()
    true_out, false_out = results
    runtime.check_same_structure(true_out, false_out)
    merged = _map(lambda t, f: stack.merge(t, f, pred), true_out, false_out)
    set_state(tuple(merged) + tuple(initial[nouts:]))


def _validate(value, name, side):
    if not isinstance(value, data_node.DataNode):
        value = data_node._call("constant", value)
    if value.device != "cpu":
        raise RuntimeError(_GPU_LOGICAL.format(name, side))
    return _operator.call(_registry.get("_conditional.validate_logical"), (value,),
                          {"expression_name": name, "expression_side": side})


def _logical(name, left, right_thunk):
    stack = current_stack()
    left = stack.bring(_validate(left, name, "left"))
    splits = {}
    out = []
    for branch in (True, False):
        stack.push(left, branch, splits)
        try:
            evaluate_right = branch if name == "and" else not branch
            value = _validate(right_thunk(), name, "right") if evaluate_right else left
            out.append(stack.bring(value))
        finally:
            stack.pop()
    return stack.merge(out[0], out[1], left)


def data_node_and(left, right_thunk):
    """`left and right` per sample: `right` is evaluated only where `left` is true."""
    return _logical("and", left, right_thunk)


def data_node_or(left, right_thunk):
    """`left or right` per sample: `right` is evaluated only where `left` is false."""
    return _logical("or", left, right_thunk)


def data_node_not(value):
    """`not value` per sample (any numeric scalar type)."""
    return _operator.call(_registry.get("_conditional.not_"), (value,), {})


runtime.register_data_node_if(data_node_if)
runtime.register_data_node_logic(data_node_and, data_node_or, data_node_not)
