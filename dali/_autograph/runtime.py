"""The functions that code rewritten by `dali._autograph.converter` calls (as `ag__.<name>`).

For Python values they behave exactly like the statement they replace: `if_stmt` runs one
branch, `and_`/`or_` short-circuit, `not_` negates.  For a `DataNode` (a per-sample value that
only exists when the pipeline runs) they hand over to hooks that the conditional layer
(`dali._autograph.conditional`) registers: it traces both branches and splits/merges batches.

The state protocol of `if_stmt`: the rewritten `if` passes `get_state()`, returning a tuple of
the current values of `symbol_names` (the variables the statement assigns; an unbound one reads
as an `Undefined`), and `set_state(values)`, which assigns them back (an `Undefined` value
unbinds the variable again, so a later read raises `UnboundLocalError` as in plain Python).
The first `nouts` names are the outputs: the variables read after the statement.
"""

from __future__ import annotations

import operator

from dali._graph import data_node

RETVAL = "ag__retval"
"""Hidden variable that holds the value of a `return` inside a rewritten `if`."""


class Undefined:
    """Value of a variable that is not bound (yet) at some point of a rewritten `if`."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Undefined({self.name!r})"


def is_undefined(value):
    """Whether `value` stands for an unbound variable."""
    return isinstance(value, Undefined)


def read(thunk, name):
    """`thunk()` (a lambda reading one variable), or `Undefined(name)` when it is unbound."""
    try:
        return thunk()
    except NameError:
        return Undefined(name)


def return_value(value):
    """The function result once every rewritten `if` has run: no `return` reached -> None."""
    return None if isinstance(value, Undefined) else value


# -- hooks -------------------------------------------------------------------------------------
_hooks = {"if": None, "and": None, "or": None, "not": None, "convert": None}


def register_data_node_if(fn):
    """Install `fn(cond, body, orelse, get_state, set_state, symbol_names, nouts)`, which
    `if_stmt` calls when the condition is a DataNode."""
    _hooks["if"] = fn


def register_data_node_logic(and_fn, or_fn, not_fn):
    """Install the DataNode forms of `and` (`and_fn(a, b_thunk)`), `or` (`or_fn(a, b_thunk)`)
    and `not` (`not_fn(x)`); `a` and `x` are DataNodes, `b_thunk()` evaluates the right side."""
    _hooks.update({"and": and_fn, "or": or_fn, "not": not_fn})


def register_converter(fn):
    """Install `fn(callable) -> callable`, which `converted_call` uses to pick what to call."""
    _hooks["convert"] = fn


def _hook(name):
    fn = _hooks[name]
    if fn is None:
        raise NotImplementedError(
            f"`{name}` on a DataNode needs the conditional layer, which did not register it")
    return fn


# -- statements and expressions ----------------------------------------------------------------
def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    """`if cond: body() else: orelse()`, or the registered DataNode hook for a DataNode."""
    if isinstance(cond, data_node.DataNode):
        return _hook("if")(cond, body, orelse, get_state, set_state, symbol_names, nouts)
    if cond:
        body()
    else:
        orelse()
    return None


def and_(a_thunk, b_thunk):
    """`a and b`, evaluating the right side only when needed."""
    a = a_thunk()
    if isinstance(a, data_node.DataNode):
        return _hook("and")(a, b_thunk)
    return a and b_thunk()


def or_(a_thunk, b_thunk):
    """`a or b`, evaluating the right side only when needed."""
    a = a_thunk()
    if isinstance(a, data_node.DataNode):
        return _hook("or")(a, b_thunk)
    return a or b_thunk()


_COMPARE = {"Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge,
            "Eq": operator.eq, "NotEq": operator.ne, "Is": operator.is_,
            "IsNot": operator.is_not, "In": lambda a, b: a in b,
            "NotIn": lambda a, b: a not in b}


def compare_chain(first, links):
    """`a op1 b op2 c ...` as `(a op1 b) and (b op2 c) and ...`: each operand evaluated once,
    in order, and only while the comparisons so far hold (`and_`, so per sample for DataNodes).

    Parameters
    ----------
    first : callable
        Thunk of the leftmost operand.
    links : tuple of (str, callable)
        The comparison's `ast` class name and the thunk of its right operand, per link.
    """

    def link(left, i):
        op, thunk = links[i]
        right = thunk()
        result = _COMPARE[op](left, right)
        if i + 1 == len(links):
            return result
        return and_(lambda: result, lambda: link(right, i + 1))

    return link(first(), 0)


def not_(x):
    """`not x`."""
    if isinstance(x, data_node.DataNode):
        return _hook("not")(x)
    return not x


def converted_call(f, args, kwargs):
    """`f(*args, **kwargs)`, where `f` is first replaced by its converted form when it is a
    user function (see `dali._autograph.converter.callee`)."""
    return _hook("convert")(f)(*args, **(kwargs or {}))


# -- checks shared with the DataNode hook ------------------------------------------------------
_INCONSISTENT = ("Encountered inconsistent outputs out of the `if/else` control flow statement."
                 " Variables need to be initialized in every code path (both `if` branches).")


def check_branch(values, symbol_names, nouts, branch):
    """Raise DALI's RuntimeError when an output (one of the first `nouts` of `symbol_names`)
    is `Undefined` after the `branch` ("if" or "else") ran."""
    for name, value in zip(symbol_names[:nouts], values[:nouts], strict=True):
        if not isinstance(value, Undefined):
            continue
        if name == RETVAL:
            raise RuntimeError(
                f"{_INCONSISTENT} The `{branch}` branch must also have a return statement.")
        raise RuntimeError(
            f"{_INCONSISTENT} Variable '{name}' must also be initialized in the `{branch}` branch.")


def check_outputs(true_values, false_values, symbol_names, nouts):
    """`check_branch` for the states after the `if` branch and after the `else` branch.

    Parameters
    ----------
    true_values, false_values : tuple
        `get_state()` after running the body, and after running the else branch.
    symbol_names : tuple of str
        The names the statement assigns; the first `nouts` are read after it.
    nouts : int
        How many of `symbol_names` are outputs; only those must be defined.
    """
    check_branch(true_values, symbol_names, nouts, "if")
    check_branch(false_values, symbol_names, nouts, "else")


_DIVERGENT = (
    "Divergent data found in different branches of `if/else` control flow statement. Variables in"
    " all code paths are merged into common output batches. The values assigned to a given"
    " variable need to have the same nesting structure in every code path (both `if`"
    " branches).\nFor example, if we define a variable as a tuple in one branch, it must be"
    " defined as a tuple of the same length in the other branch - the contents of the tuples may"
    " be different. If we define a variable as a dictionary, the other branch must define it as a"
    " dictionary with the same set of keys, the values may be different.\n")


def _skeleton(x):
    """`x` with every leaf replaced by '*' (None, tuples, lists and dicts are structure)."""
    if isinstance(x, dict):
        return {k: _skeleton(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*map(_skeleton, x))
    if isinstance(x, (tuple, list)):
        return type(x)(map(_skeleton, x))
    return None if x is None else "*"


def _is_leaf(x):
    return x is not None and not isinstance(x, (dict, tuple, list))


def _same_structure(a, b):
    if _is_leaf(a) or _is_leaf(b):
        return _is_leaf(a) and _is_leaf(b)
    if type(a) is not type(b):
        return False
    if a is None:
        return True
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_structure(a[k], b[k]) for k in a)
    return len(a) == len(b) and all(map(_same_structure, a, b))


def check_same_structure(a, b, name=None):
    """Raise DALI's ValueError unless `a` (from the `if` branch) and `b` (from the `else`
    branch) nest the same way: tuples/lists of equal type and length, dicts with equal keys,
    None against None; any other values are leaves and may differ.

    Passing the whole tuples of branch outputs reproduces DALI's message; `name` (a variable)
    is added to it when given.
    """
    if _same_structure(a, b):
        return
    what = f"Variable '{name}': " if name is not None else ""
    raise ValueError(f"{_DIVERGENT}\n{what}'If' output structure: {_skeleton(a)}\n"
                     f"'Else' output structure: {_skeleton(b)}")
