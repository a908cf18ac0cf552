"""The functions converted code calls: Python semantics for Python values, hooks for DataNodes,
and the checks (with DALI's messages) that the DataNode hook shares."""

import collections

import pytest

from dali._autograph import runtime
from dali._graph import data_node

INCONSISTENT = ("Encountered inconsistent outputs out of the `if/else` control flow statement. "
                "Variables need to be initialized in every code path (both `if` branches). ")


@pytest.fixture
def fresh_hooks(monkeypatch):
    """A hook table of our own (the conditional layer may have registered real ones)."""
    monkeypatch.setattr(runtime, "_hooks", dict(runtime._hooks))


def state_fns(store, names):
    def get_state():
        return tuple(store.get(n, runtime.Undefined(n)) for n in names)

    def set_state(values):
        for n, v in zip(names, values, strict=True):
            if runtime.is_undefined(v):
                store.pop(n, None)
            else:
                store[n] = v

    return get_state, set_state


@pytest.mark.parametrize("cond, taken", [(True, "body"), (0, "orelse"), ([1], "body"),
                                         ("", "orelse")])
def test_if_stmt_python_condition_runs_one_branch(cond, taken):
    ran = []
    get_state, set_state = state_fns({}, ())
    result = runtime.if_stmt(cond, lambda: ran.append("body"), lambda: ran.append("orelse"),
                             get_state, set_state, (), 0)
    assert result is None and ran == [taken]


def test_if_stmt_data_node_goes_to_the_hook(fresh_hooks):
    seen = []

    def hook(*args):
        seen.append(args)
        return "hook result"

    runtime.register_data_node_if(hook)
    cond = data_node.DataNode("c")
    parts = (lambda: None, lambda: None, lambda: (), lambda values: None)
    assert runtime.if_stmt(cond, *parts, ("y", "t"), 1) == "hook result"
    assert seen == [(cond, *parts, ("y", "t"), 1)]


def test_data_node_without_hooks_is_not_implemented(fresh_hooks):
    runtime._hooks.update(dict.fromkeys(("if", "and", "or", "not")))
    cond = data_node.DataNode("c")
    with pytest.raises(NotImplementedError, match="`if` on a DataNode"):
        runtime.if_stmt(cond, None, None, None, None, (), 0)
    with pytest.raises(NotImplementedError, match="`and` on a DataNode"):
        runtime.and_(lambda: cond, lambda: 1)
    with pytest.raises(NotImplementedError, match="`not` on a DataNode"):
        runtime.not_(cond)


@pytest.mark.parametrize("a, b", [(0, 5), (3, 5), ("", []), ([1], 0), (None, 2)])
def test_and_or_not_python_semantics_and_short_circuit(a, b):
    calls = []

    def right():
        calls.append(1)
        return b

    assert runtime.and_(lambda: a, right) == (a and b)
    assert len(calls) == (1 if a else 0)
    calls.clear()
    assert runtime.or_(lambda: a, right) == (a or b)
    assert len(calls) == (0 if a else 1)
    assert runtime.not_(a) is (not a)


def test_logic_on_data_nodes_goes_to_the_hooks(fresh_hooks):
    runtime.register_data_node_logic(lambda a, b: ("and", a, b()), lambda a, b: ("or", a, b()),
                                     lambda x: ("not", x))
    a = data_node.DataNode("a")
    assert runtime.and_(lambda: a, lambda: 2) == ("and", a, 2)
    assert runtime.or_(lambda: a, lambda: 3) == ("or", a, 3)
    assert runtime.not_(a) == ("not", a)
    # A Python left side keeps Python semantics even when the right side is a DataNode.
    assert runtime.and_(lambda: 1, lambda: a) is a
    assert runtime.or_(lambda: 0, lambda: a) is a


def test_read_undefined_and_return_value():
    y = 3
    assert runtime.read(lambda: y, "y") == 3

    def unbound():
        return z  # noqa: F821

    value = runtime.read(unbound, "z")
    assert runtime.is_undefined(value) and value.name == "z" and repr(value) == "Undefined('z')"
    assert runtime.return_value(value) is None
    assert runtime.return_value(0) == 0


def test_converted_call_uses_the_registered_converter(fresh_hooks):
    runtime.register_converter(lambda f: lambda *a, **k: ("converted", f(*a, **k)))
    assert runtime.converted_call(max, (1, 4), None) == ("converted", 4)
    assert runtime.converted_call(sorted, ([3, 1],), {"reverse": True}) == ("converted", [3, 1])


def test_check_outputs_messages():
    u = runtime.Undefined
    runtime.check_outputs((1, u("t")), (2, u("t")), ("y", "t"), 1)  # t is no output
    with pytest.raises(RuntimeError) as e:
        runtime.check_outputs((1,), (u("y"),), ("y",), 1)
    assert str(e.value) == INCONSISTENT + (
        "Variable 'y' must also be initialized in the `else` branch.")
    with pytest.raises(RuntimeError) as e:
        runtime.check_outputs((u("y"),), (u("y"),), ("y",), 1)
    assert str(e.value).endswith("Variable 'y' must also be initialized in the `if` branch.")
    with pytest.raises(RuntimeError) as e:
        runtime.check_outputs((1, u(runtime.RETVAL)), (1, 2), ("y", runtime.RETVAL), 2)
    assert str(e.value) == INCONSISTENT + "The `if` branch must also have a return statement."


Point = collections.namedtuple("Point", "x y")


@pytest.mark.parametrize("a, b", [
    (1, "leaf of another type"), ((1, [2, 3]), ("a", ["b", "c"])), ({"k": 1, "j": 2}, {"j": 0,
                                                                                       "k": 5}),
    (None, None), (Point(1, 2), Point(3, 4)), ((), ())])
def test_same_structures_pass(a, b):
    runtime.check_same_structure(a, b, "y")


@pytest.mark.parametrize("a, b, shown", [
    ((1, 2), 3, "'If' output structure: ('*', '*')\n'Else' output structure: *"),
    ((1, 2), [1, 2], "'If' output structure: ('*', '*')\n'Else' output structure: ['*', '*']"),
    ({"k": 1}, {"j": 1}, "'If' output structure: {'k': '*'}\n'Else' output structure: {'j': '*'}"),
    (None, 1, "'If' output structure: None\n'Else' output structure: *"),
    ((1, (2, 3)), (1, (2,)), "('*', ('*', '*'))\n'Else' output structure: ('*', ('*',))"),
    (Point(1, 2), (1, 2), "Point(x='*', y='*')"),
])
def test_divergent_structures_raise(a, b, shown):
    with pytest.raises(ValueError) as e:
        runtime.check_same_structure(a, b)
    msg = str(e.value)
    assert msg.startswith("Divergent data found in different branches of `if/else` control "
                          "flow statement. Variables in all code paths are merged")
    assert shown in msg
    with pytest.raises(ValueError, match="Variable 'y': 'If' output structure"):
        runtime.check_same_structure(a, b, "y")
