"""The `if`/`and`/`or`/`not`/call rewriting: converted functions behave like the originals for
Python values, and hand DataNode conditions to the registered hooks with the right state."""

import functools
import importlib.util
import json
import sys
import textwrap
import traceback

import pytest

from dali._autograph import converter, runtime
from dali._graph import data_node
from dali._pipeline import definition


class Merged:
    """What the test hook below makes of a variable after a DataNode `if`."""

    def __init__(self, cond, if_value, else_value):
        self.cond, self.if_value, self.else_value = cond, if_value, else_value

    def __eq__(self, other):
        return (isinstance(other, Merged) and self.cond is other.cond
                and (self.if_value, self.else_value) == (other.if_value, other.else_value))

    def __repr__(self):
        return f"Merged({self.cond.name}, {self.if_value!r}, {self.else_value!r})"


@pytest.fixture
def hooks(monkeypatch):
    """Installs DataNode hooks that trace both branches as DALI does, merging outputs into
    `Merged` values; returns the list of `(cond name, symbol_names, nouts)` of the `if`s."""
    monkeypatch.setattr(runtime, "_hooks", dict(runtime._hooks))
    calls = []

    def if_hook(cond, body, orelse, get_state, set_state, names, nouts):
        calls.append((cond.name, names, nouts))
        init = get_state()
        body()
        true_state = get_state()
        runtime.check_branch(true_state, names, nouts, "if")
        set_state(init)
        orelse()
        false_state = get_state()
        runtime.check_branch(false_state, names, nouts, "else")
        runtime.check_same_structure(true_state[:nouts], false_state[:nouts])
        outs = tuple(Merged(cond, t, f)
                     for t, f in zip(true_state[:nouts], false_state[:nouts], strict=True))
        set_state(outs + init[nouts:])

    runtime.register_data_node_if(if_hook)
    runtime.register_data_node_logic(lambda a, b: ("and", a.name, b()),
                                     lambda a, b: ("or", a.name, b()),
                                     lambda x: ("not", x.name))
    return calls


def dn(name):
    return data_node.DataNode(name)


def same(func, *args, **kwargs):
    """Run `func` and its converted form; check that it was converted and that both agree."""
    conv = converter.convert(func)
    assert conv is not func
    expected = func(*args, **kwargs)
    assert conv(*args, **kwargs) == expected
    return expected


# -- Python values: converted == original ------------------------------------------------------
def chain(x):
    if x > 10:
        y = "big"
    elif x > 5:
        y = "medium"
    elif x > 0:
        y = "small"
    else:
        y = "none"
    return y


def nested(a, b):
    r = 0
    if a:
        if b:
            r = 1
        else:
            r = 2
    elif b:
        r = 3
    return r


@pytest.mark.parametrize("x, expected", [(-1, "none"), (0, "none"), (3, "small"),
                                         (7, "medium"), (11, "big")])
def test_if_elif_else_chain(x, expected):
    assert same(chain, x) == expected


@pytest.mark.parametrize("a", [0, 1])
@pytest.mark.parametrize("b", [0, 1])
def test_nested_ifs(a, b):
    assert same(nested, a, b) == {(0, 0): 0, (0, 1): 3, (1, 0): 2, (1, 1): 1}[a, b]


def logic(seen, a, b, c):
    def v(name, value):
        seen.append(name)
        return value

    x = v("a", a) and v("b", b) and v("c", c)
    y = v("a", a) or v("b", b) or v("c", c)
    z = not v("a", a)
    if v("a", a) and not v("b", b) or v("c", c):
        return x, y, z, "taken"
    return x, y, z, "not taken"


@pytest.mark.parametrize("values", [(0, 0, 0), (1, 0, 2), (1, 3, 0), (0, [], 5), (1, 2, 3)])
def test_and_or_not_short_circuit(values):
    seen_plain, seen_conv = [], []
    expected = logic(seen_plain, *values)
    assert converter.convert(logic)(seen_conv, *values) == expected
    assert seen_conv == seen_plain


def loops(n):
    total, log = 0, []
    for i in range(n):
        if i % 3 == 0:
            continue
        if i > 7:
            break
        if i % 2:
            total += i
        else:
            log.append(i)
    k = 0
    while k < n:
        if k == 2:
            step = 2
        else:
            step = 1
        k += step
    return total, log, k


@pytest.mark.parametrize("n, expected", [(0, (0, [], 0)), (4, (1, [2], 4)),
                                         (12, (13, [2, 4], 12))])
def test_loops_containing_ifs(n, expected):
    assert same(loops, n) == expected


def test_variable_read_earlier_in_the_loop_is_an_output(hooks):
    def f(c):
        last, seen = 0, []
        for _ in range(2):
            seen.append(last)
            if c:
                last = 1
            else:
                last = 2
        return seen

    c = dn("c")
    assert converter.convert(f)(c) == [0, Merged(c, 1, 2)]
    assert hooks == [("c", ("last",), 1)] * 2


def make_counter(start):
    count = start
    scale = 10

    def bump(flag):
        nonlocal count
        if flag:
            count += 1
            note = "up"
        else:
            note = "same"
        return count * scale, note

    return bump


def test_closures_share_cells_with_the_original():
    bump = make_counter(5)
    conv = converter.convert(bump)
    assert conv.__closure__[0] is not None
    assert conv(True) == (60, "up")
    assert bump(False) == (60, "same")
    assert conv(True) == (70, "up")
    assert bump(True) == (80, "up")


FLAG = False
COUNTER = 0


def use_globals(n):
    global COUNTER
    if FLAG:
        COUNTER += n
    else:
        COUNTER -= n
    return COUNTER


def test_globals_are_read_live_and_written(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "COUNTER", 0)
    conv = converter.convert(use_globals)
    assert conv(2) == -2
    monkeypatch.setattr(sys.modules[__name__], "FLAG", True)
    assert conv(5) == 3
    assert COUNTER == 3


def signature(a, b=2, *rest, c, d=4, **kw):
    if rest:
        extra = sum(rest)
    else:
        extra = -1
    return a, b, extra, c, d, sorted(kw.items())


@pytest.mark.parametrize("args, kwargs, expected", [
    ((1,), {"c": 3}, (1, 2, -1, 3, 4, [])),
    ((1, 5, 6, 7), {"c": 0, "e": 9}, (1, 5, 13, 0, 4, [("e", 9)])),
    ((0,), {"c": 1, "d": 8}, (0, 2, -1, 1, 8, []))])
def test_defaults_keyword_only_and_varargs(args, kwargs, expected):
    assert same(signature, *args, **kwargs) == expected


def test_function_attributes_are_kept():
    conv = converter.convert(signature)
    assert (conv.__name__, conv.__qualname__, conv.__module__) == (
        "signature", "signature", __name__)
    assert conv.__defaults__ == (2,) and conv.__kwdefaults__ == {"d": 4}
    assert conv.__code__.co_filename == __file__
    assert conv.__code__.co_firstlineno == signature.__code__.co_firstlineno
    assert converter.convert(signature) is conv  # cached
    assert converter.convert(conv) is conv


applied = []


def register(func):
    applied.append(func.__name__)
    func.registered = True
    return func


def twice(func):
    @functools.wraps(func)
    def wrapper(x):
        return func(func(x))

    return wrapper


@register
def decorated(x):
    """Doc."""
    if x:
        return "yes"
    return "no"


@twice
def tagged(x):
    if x:
        y = (x, "t")
    else:
        y = (x, "f")
    return y


def test_decorators_are_not_applied_again():
    count = len(applied)
    conv = converter.convert(decorated)
    assert len(applied) == count
    assert (conv(1), conv(0), conv.__doc__, conv.registered) == ("yes", "no", "Doc.", True)


def test_wrapping_decorator_is_kept(hooks):
    def f(x):
        return tagged(x)

    assert same(f, 0) == ((0, "f"), "t")
    # `tagged` is `wrapper`: it is converted, runs twice and calls the converted inner function.
    x = dn("x")
    assert converter.convert(f)(x) == (Merged(x, (x, "t"), (x, "f")), "t")
    assert hooks == [("x", ("y",), 1)]


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def test_recursion():
    assert same(fib, 10) == 55


class Base:
    def describe(self, x):
        return f"base {x}"


class Shape(Base):
    def __init__(self, sides):
        self.__sides = sides

    def describe(self, x):
        if self.__sides > 3:
            kind = "polygon"
        else:
            kind = super().describe(x)
        return kind

    @classmethod
    def make(cls, sides):
        if sides < 3:
            sides = 3
        return cls(sides)

    @staticmethod
    def area_name(flag):
        return "big" if flag else "small"


def use_methods(sides, x):
    shape = Shape.make(sides)
    if x:
        label = shape.describe(x) + Shape.area_name(x > 1)
    else:
        label = shape.describe(0)
    return label


@pytest.mark.parametrize("sides, x, expected", [(2, 0, "base 0"), (3, 2, "base 2big"),
                                                (5, 1, "polygonsmall")])
def test_methods_private_names_and_super(sides, x, expected):
    assert same(use_methods, sides, x) == expected


def test_methods_called_inside_are_converted(hooks):
    shape = Shape(4)
    assert converter.convert(use_methods)(4, 1) == "polygonsmall"
    conv = converter.callee(shape.describe)
    assert conv.__self__ is shape and conv.__func__ is converter.convert(Shape.describe)
    assert conv(dn("x")) == "polygon"


def callback(x, seen):
    if x:
        seen.append("callback if")
    else:
        seen.append("callback else")
    return x


OTHER = """
def apply(f, x, seen):
    if x:
        seen.append("apply if")
    return f(x, seen)
"""


def test_functions_from_other_modules_calling_back(tmp_path, hooks):
    path = tmp_path / "ag_other_module.py"
    path.write_text(OTHER)
    spec = importlib.util.spec_from_file_location("ag_other_module", path)
    other = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(other)

    def f(x, seen):
        return other.apply(callback, x, seen)

    seen = []
    assert same(f, 1, seen) == 1
    assert seen == ["apply if", "callback if"] * 2
    seen = []
    converter.convert(f)(dn("x"), seen)
    assert seen == ["apply if", "callback if", "callback else"]
    assert [name for name, _, _ in hooks] == ["x", "x"]


def test_library_functions_are_called_as_they_are():
    assert converter.callee(json.dumps) is json.dumps
    assert converter.callee(len) is len
    assert converter.callee(definition.split_kwargs) is definition.split_kwargs
    assert converter.callee(runtime.if_stmt) is runtime.if_stmt
    assert converter.callee(Shape) is Shape
    assert not converter.is_user_function(textwrap.dedent)
    part = converter.callee(functools.partial(chain, 7))
    assert part.func is converter.convert(chain) and part() == "medium"


def test_lambdas_and_functions_without_source_are_unchanged():
    lam = lambda x: 1 if x else 2  # noqa: E731
    assert converter.convert(lam) is lam
    namespace = {}
    exec("def g(x):\n    if x:\n        return 1\n    return 2\n", namespace)
    assert converter.convert(namespace["g"]) is namespace["g"]


def marked_helper(x):
    if x:  # a DataNode here raises unless converted
        return 1
    return 0


def test_do_not_convert_marked_functions_are_not_converted(hooks):
    marked = definition.do_not_convert(marked_helper)
    assert converter.convert(marked) is marked
    assert converter.callee(marked) is marked

    def f(x):
        return marked(x)

    with pytest.raises(TypeError, match="enable_conditionals=True"):
        converter.convert(f)(dn("x"))
    assert hooks == []


def gen(n):
    for i in range(n):
        if i % 2:
            yield i


def test_if_with_yield_stays_a_python_if():
    assert list(converter.convert(gen)(5)) == [1, 3]


def early_returns(x):
    if x > 5:
        return "big"
    y = x * 2
    if y > 4:
        return "medium"
    elif y > 0:
        return "small"
    return "none"


def falls_through(x):
    if x:
        return "yes"


def return_in_loop(xs):
    for x in xs:
        if x > 2:
            return x
    return None


@pytest.mark.parametrize("x, expected", [(0, ("none", None, None)), (1, ("small", "yes", None)),
                                         (3, ("medium", "yes", 3)), (9, ("big", "yes", 9))])
def test_returns_in_ifs(x, expected):
    got = (same(early_returns, x), same(falls_through, x), same(return_in_loop, [1, x]))
    assert got == expected


# -- DataNode conditions -----------------------------------------------------------------------
def test_data_node_if_gets_names_with_live_outputs_first(hooks):
    def f(c, d):
        keep = 1
        if c:
            y = 1
            tmp = 2
            keep = tmp
        else:
            y = 3
            unused = 4
            del unused
        z = 0
        if d:
            z = y
            w = keep  # noqa: F841
        return z, keep

    c, d = dn("c"), dn("d")
    z, keep = converter.convert(f)(c, d)
    assert hooks == [("c", ("keep", "y", "tmp", "unused"), 2), ("d", ("z", "w"), 1)]
    assert keep == Merged(c, 2, 1)
    assert z == Merged(d, Merged(c, 1, 3), 0)


def test_liveness_counts_loops_closures_and_globals(hooks):
    def f(c):
        global COUNTER
        total = []
        for _ in range(2):
            total.append(x if total else None)  # noqa: F821 (x is read again in the loop)
            if c:
                x = 1
                COUNTER = 5
                later = 2
            else:
                x = 2  # noqa: F841
                later = 3

        def reader():
            return later

        return total, reader

    c = dn("c")
    total, reader = converter.convert(f)(c)
    assert hooks[0] == ("c", ("COUNTER", "later", "x"), 3)
    assert total == [None, Merged(c, 1, 2)]
    assert reader() == Merged(c, 2, 3)


def test_names_bound_by_nested_scopes_are_not_reads_of_outputs(hooks):
    def f(c, xs):
        if c:
            v = 1  # noqa: F841
            k = 2  # noqa: F841
            y = 3
        else:
            y = 4
        squares = [v * v for v in xs]
        scale = lambda k: k * 2  # noqa: E731
        return y, squares, scale(1)

    c = dn("c")
    assert converter.convert(f)(c, [2]) == (Merged(c, 3, 4), [4], 2)
    assert hooks == [("c", ("y", "k", "v"), 1)]


def test_functions_defined_in_converted_code_are_not_converted_again():
    def f(c):
        def inner(x):
            if x:
                return "inner yes"
            return "inner no"

        return inner(c), inner

    result, inner = converter.convert(f)(1)
    assert result == "inner yes" and converter.convert(inner) is inner
    assert "ag__" in inner.__code__.co_freevars


def test_elif_is_a_nested_if_stmt_in_the_else_branch(hooks):
    def f(a, b):
        if a:
            y = 1
        elif b:
            y = 2
        else:
            y = 3
        return y

    a, b = dn("a"), dn("b")
    assert converter.convert(f)(a, b) == Merged(a, 1, Merged(b, 2, 3))
    assert hooks == [("a", ("y",), 1), ("b", ("y",), 1)]


def test_returns_become_one_output(hooks):
    assert converter.convert(early_returns)(3) == "medium"
    assert hooks == []

    def f(c, d):
        if c:
            return "a"
        if d:
            return "b"
        return "c"

    c, d = dn("c"), dn("d")
    assert converter.convert(f)(c, d) == Merged(c, "a", Merged(d, "b", "c"))
    assert hooks == [("c", (runtime.RETVAL,), 1), ("d", (runtime.RETVAL,), 1)]


def test_and_or_not_on_data_nodes_use_the_hooks(hooks):
    def f(a, b):
        return a and b, a or b, not a, (1 and a), (0 or b)

    a, b = dn("a"), dn("b")
    assert converter.convert(f)(a, b) == (("and", "a", b), ("or", "a", b), ("not", "a"), a, b)


def test_if_expression_is_left_alone(hooks):
    def f(c):
        return 1 if c else 2

    with pytest.raises(TypeError, match="DataNode"):
        converter.convert(f)(dn("c"))


# -- errors ------------------------------------------------------------------------------------
INCONSISTENT = ("Encountered inconsistent outputs out of the `if/else` control flow statement. "
                "Variables need to be initialized in every code path (both `if` branches). ")


def one_branch(c):
    if c:
        y = 1
    return y  # noqa: F821


def one_branch_unused(c):
    if c:
        y = 1  # noqa: F841
    return 2


def test_variable_set_in_one_branch(hooks):
    with pytest.raises(RuntimeError) as e:
        converter.convert(one_branch)(dn("c"))
    assert str(e.value) == INCONSISTENT + (
        "Variable 'y' must also be initialized in the `else` branch.")
    assert converter.convert(one_branch_unused)(dn("c")) == 2
    # A Python condition keeps Python's behaviour.
    assert converter.convert(one_branch)(True) == 1
    with pytest.raises(UnboundLocalError):
        converter.convert(one_branch)(False)


def test_return_in_one_branch_only(hooks):
    with pytest.raises(RuntimeError) as e:
        converter.convert(falls_through)(dn("c"))
    assert str(e.value) == INCONSISTENT + "The `else` branch must also have a return statement."

    def other_side(c):
        if c:
            pass
        else:
            return 1

    with pytest.raises(RuntimeError, match="The `if` branch must also have a return statement"):
        converter.convert(other_side)(dn("c"))
    assert converter.convert(falls_through)(False) is None


def test_divergent_structures(hooks):
    def f(c):
        if c:
            y = (1, 2)
        else:
            y = 3
        return y

    with pytest.raises(ValueError, match="Divergent data found in different branches"):
        converter.convert(f)(dn("c"))


def failing(c):
    if c:
        x = 1
        raise KeyError("inside the branch")
    else:
        x = 2
    return x


def test_tracebacks_point_at_user_lines(hooks):
    raise_line = failing.__code__.co_firstlineno + 3
    for cond in (True, dn("c")):
        with pytest.raises(KeyError) as e:
            converter.convert(failing)(cond)
        frames = [(f.filename, f.lineno) for f in traceback.extract_tb(e.value.__traceback__)]
        assert frames[-1] == (__file__, raise_line)
        assert (__file__, raise_line - 2) in frames  # the `if` line
