"""Source rewriting behind `enable_conditionals=True`.

`convert(func)` parses the function's source, rewrites it with `_Converter` and compiles it back
with the original file name and line numbers, so tracebacks point at the user's code.  Only
these constructs change; everything else runs as written:

* `if`/`elif`/`else` becomes a call of `ag__.if_stmt` (see `runtime`) with the two branches as
  nested functions.  They share the enclosing function's variables through `nonlocal` (`global`
  for names the function declares global), so a Python condition runs one branch with plain
  Python semantics, while a DataNode condition lets the conditional layer trace both.
* `a and b`, `a or b`, `not x` become `ag__.and_(lambda: a, lambda: b)`, `ag__.or_`, `ag__.not_`;
  a chained comparison `a < b < c` becomes `ag__.compare_chain(...)`, the `and_` of its links.
* calls become `ag__.converted_call(f, args, kwargs)`, which converts user functions lazily.

A `return` inside an `if` must end the function: the code after an `if` whose one branch
always returns is moved into the other branch, and the returns of an `if` that is then the last
statement of the function become assignments to a hidden variable returned after the call.
An `if` that cannot become a pair of functions stays a Python `if` (DataNode conditions then
raise DataNode's TypeError): one containing `break`/`continue` of an outer loop, `yield`,
`await`, zero-argument `super()`, or a `return` elsewhere (in a loop, before more code, ...).
Liveness is conservative: a variable an `if` assigns is one of its outputs when it is read
anywhere after it, anywhere in an enclosing loop, in any nested function, or is declared
global/nonlocal.
"""

import __future__

import ast
import functools
import inspect
import os
import site
import sys
import sysconfig
import types
import weakref

from dali._autograph import errors, runtime

RUNTIME = "ag__"
RETVAL = runtime.RETVAL
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SCOPES = (*_DEFS, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
# Builtins that look at the calling frame: `converted_call` would run them in the wrong one.
_FRAME_BUILTINS = {"super", "locals", "globals", "vars", "dir", "eval", "exec"}


# -- analysis ----------------------------------------------------------------------------------
def _walk_scope(nodes, stop=_SCOPES):
    """`nodes` and their descendants, without entering nested functions, classes, lambdas or
    comprehensions (their variables are their own)."""
    todo = list(nodes)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, stop):
            todo.extend(ast.iter_child_nodes(node))


def _blocks(stmt):
    """The statement lists directly inside a compound statement."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(stmt, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for sub in getattr(stmt, "handlers", []) + getattr(stmt, "cases", []):
        yield sub.body


def _reads(nodes):
    """Names that `nodes` read from their function, including reads by nested functions,
    lambdas and comprehensions of names they do not bind themselves."""
    names = set()
    for n in _walk_scope(nodes):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store):
            names.add(n.id)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            names.add(n.target.id)
        elif isinstance(n, ast.ClassDef):
            names |= _reads(list(ast.iter_child_nodes(n)))
        elif isinstance(n, _SCOPES):
            outer, inner, own = _scope_parts(n)
            names |= _reads(outer) | (_reads(inner) - own)
    return names


def _scope_parts(node):
    """(evaluated outside, evaluated inside, names bound inside) of a function, lambda or
    comprehension."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = node.args
        params = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p}
        outer = [*a.defaults, *filter(None, a.kw_defaults), *getattr(node, "decorator_list", [])]
        body = node.body if isinstance(node.body, list) else [node.body]
        declared = {name for n in _walk_scope(body) if isinstance(n, (ast.Global, ast.Nonlocal))
                    for name in n.names}
        return outer, body, params | (_bound_names(body) - declared)
    first = node.generators[0]  # its iterable is evaluated outside
    inner = [c for c in ast.iter_child_nodes(node) if c is not first] + [first.target, *first.ifs]
    own = {t.id for g in node.generators for t in ast.walk(g.target) if isinstance(t, ast.Name)}
    return [first.iter], inner, own


def _bound_names(stmts):
    """Names that `stmts` bind or delete in their own scope."""
    names = set()
    for n in _walk_scope(stmts):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, _DEFS):
            names.add(n.name)
        elif isinstance(n, ast.alias):
            names.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name:
            names.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            names.add(n.rest)
    return names


def _has_return(node):
    return any(isinstance(n, ast.Return) for n in _walk_scope([node]))


def _terminates(stmts):
    """Whether running `stmts` always ends in a `return` or `raise`."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    return isinstance(last, ast.If) and _terminates(last.body) and _terminates(last.orelse)


def _returns_in_tail(stmts):
    """Whether every `return` in `stmts` is its last statement or in a tail `if` branch."""
    for k, stmt in enumerate(stmts):
        if not _has_return(stmt):
            continue
        if k != len(stmts) - 1:
            return False
        if isinstance(stmt, ast.Return):
            return True
        return (isinstance(stmt, ast.If) and _returns_in_tail(stmt.body)
                and _returns_in_tail(stmt.orelse))
    return True


def _lower_returns(stmts, tail, return_ifs):
    """Move the code after an `if` with one always-returning branch into the other branch;
    collect into `return_ifs` the `if`s with returns that end the function (`tail`)."""
    for i, stmt in enumerate(stmts):
        if not (isinstance(stmt, ast.If) and _has_return(stmt)):
            continue
        body_ends, else_ends = _terminates(stmt.body), _terminates(stmt.orelse)
        if i + 1 < len(stmts) and body_ends != else_ends:
            (stmt.orelse if body_ends else stmt.body).extend(stmts[i + 1:])
            del stmts[i + 1:]
        is_tail = tail and i + 1 == len(stmts)
        _lower_returns(stmt.body, is_tail, return_ifs)
        _lower_returns(stmt.orelse, is_tail, return_ifs)
        if is_tail and _returns_in_tail([stmt]):
            return_ifs.add(stmt)


def _liveness(stmts, after, live):
    """Store in `live[if_node]` the names read after each `if` (`after`: read after `stmts`)."""
    suffix = set(after)
    for stmt in reversed(stmts):
        if isinstance(stmt, ast.If):
            live[stmt] = frozenset(suffix)
            inner = suffix
        else:  # a loop runs its body again; try/with/match: be conservative
            inner = suffix | _reads([stmt])
        if not isinstance(stmt, _DEFS):
            for block in _blocks(stmt):
                _liveness(block, inner, live)
        suffix = suffix | _reads([stmt])


def _jumps_out(stmts):
    """Whether `stmts` contain a `break`/`continue` of a loop around them."""
    for stmt in stmts:
        if isinstance(stmt, (ast.Break, ast.Continue)):
            return True
        if isinstance(stmt, _DEFS):
            continue
        blocks = [stmt.orelse] if isinstance(stmt, _LOOPS) else _blocks(stmt)
        if any(_jumps_out(block) for block in blocks):
            return True
    return False


def _frame_bound(nodes):
    """Whether `nodes` use something that cannot move into a nested function or lambda."""
    for n in _walk_scope(nodes, stop=(*_DEFS, ast.Lambda)):
        if isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr, ast.AsyncFor,
                          ast.AsyncWith)):
            return True
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super"
                and not n.args):
            return True
    return False


class _Scope:
    """What the rewriting needs to know about one function (its `if`s and declarations)."""

    def __init__(self, fn):
        decls = [n for n in _walk_scope(fn.body) if isinstance(n, (ast.Global, ast.Nonlocal))]
        self.globals = {name for d in decls if isinstance(d, ast.Global) for name in d.names}
        self.nonlocals = {name for d in decls if isinstance(d, ast.Nonlocal) for name in d.names}
        # A declaration inside an `if` would move into a branch function: repeat it on top.
        self.hoisted = [d for d in decls if d not in fn.body]
        self.return_ifs = set()
        _lower_returns(fn.body, True, self.return_ifs)
        self.live = {}
        _liveness(fn.body, (), self.live)
        # Nested functions may run later: what they read is live everywhere.
        nested = [n for n in _walk_scope(fn.body) if isinstance(n, (*_DEFS, ast.Lambda))]
        self.always_live = _reads(nested) | self.globals | self.nonlocals | {RETVAL}
        self.depth = 0  # how many generated branch functions the current statement is in


# -- rewriting ---------------------------------------------------------------------------------
def _locate(tree, like, force=False):
    """Give the nodes of `tree` the position of `like` (only those without one unless `force`)."""
    for n in ast.walk(tree):
        if "lineno" in n._attributes and (force or not hasattr(n, "lineno")):
            for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                setattr(n, attr, getattr(like, attr))
    return tree


def _runtime_call(name, args, like):
    func = ast.Attribute(ast.Name(RUNTIME, ast.Load()), name, ast.Load())
    return _locate(ast.Call(func, args, []), like)


def _thunk(expr):
    return _locate(ast.Lambda(ast.arguments([], [], None, [], [], None, []), expr), expr)


def _assign_returns(stmts):
    """Replace the tail `return`s of `stmts` by assignments to the hidden result variable."""
    last = stmts[-1] if stmts else None
    if isinstance(last, ast.Return):
        value = last.value or ast.Constant(None)
        stmts[-1] = _locate(ast.Assign([ast.Name(RETVAL, ast.Store())], value), last)
    elif isinstance(last, ast.If):
        _assign_returns(last.body)
        _assign_returns(last.orelse)


def _indent(text):
    return "".join("    " + line + "\n" for line in text.splitlines())


class _Converter(ast.NodeTransformer):
    """Rewrites one function definition (and the functions nested in it)."""

    def __init__(self):
        self._scopes = []
        self._count = 0

    def visit_FunctionDef(self, node):
        scope = _Scope(node)
        self._scopes.append(scope)
        node.body = self._visit_block(node.body)
        self._scopes.pop()
        node.body[:0] = [_locate(type(d)(list(d.names)), d) for d in scope.hoisted]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        # A class body runs in a namespace that lambdas and nested functions cannot see, so
        # only its methods are rewritten.
        node.body = [self.visit(s) if isinstance(s, _DEFS) else s for s in node.body]
        return node

    def _visit_block(self, stmts):
        out = []
        for stmt in stmts:
            new = self.visit(stmt)
            out.extend(new if isinstance(new, list) else [new])
        return out

    def visit_If(self, node):
        scope = self._scopes[-1]
        returns = node in scope.return_ifs and _has_return(node)  # not yet assigned by an outer if
        branches = node.body + node.orelse
        if _jumps_out(branches) or _frame_bound(branches) or (_has_return(node) and not returns):
            return self.generic_visit(node)
        if returns:
            _assign_returns(node.body)
            _assign_returns(node.orelse)
        names = sorted(_bound_names(node.body + node.orelse))
        live = scope.live[node] | scope.always_live
        outs = [n for n in names if n in live]
        symbols = outs + [n for n in names if n not in live]
        node.test = self.visit(node.test)
        scope.depth += 1
        body, orelse = self._visit_block(node.body), self._visit_block(node.orelse)
        scope.depth -= 1
        code = self._if_stmt_code(node, symbols, len(outs), scope)
        if_body, else_body = code[0], code[1]
        if_body.body[-1:] = body
        if orelse:
            else_body.body[-1:] = orelse
        if scope.depth == 0:  # `nonlocal` needs a binding in the function: annotate, not assign
            code[:0] = [_locate(ast.AnnAssign(ast.Name(n, ast.Store()),
                                              ast.Name("object", ast.Load()), None, 1), node)
                        for n in symbols if n not in scope.globals | scope.nonlocals]
        if returns:
            init = _runtime_call("Undefined", [ast.Constant(RETVAL)], node)
            code.insert(-1, _locate(ast.Assign([ast.Name(RETVAL, ast.Store())], init), node))
            result = _runtime_call("return_value", [ast.Name(RETVAL, ast.Load())], node)
            code.append(_locate(ast.Return(result), node))
        return code

    def _if_stmt_code(self, node, names, nouts, scope):
        """The branch functions, state functions and `if_stmt` call; the branch bodies are
        `pass`, the condition is the name `ag__cond`, both to be replaced."""
        self._count += 1
        body, orelse, get, put = (f"ag__{kind}_{self._count}"
                                  for kind in ("if_body", "else_body", "get_state", "set_state"))
        glob = [n for n in names if n in scope.globals]
        nonloc = [n for n in names if n not in scope.globals]
        decl = "".join(f"{kw} {', '.join(ns)}\n"
                       for kw, ns in (("global", glob), ("nonlocal", nonloc)) if ns)
        reads = "".join(f"{RUNTIME}.read(lambda: {n}, {n!r}), " for n in names)
        # An Undefined value means "unbound": delete the variable so that reading it fails.
        assign = "".join([f"({', '.join(names)},) = ag__state\n" if names else "pass\n"]
                         + [f"if {RUNTIME}.is_undefined({n}):\n    del {n}\n" for n in names])
        source = (f"def {body}():\n" + _indent(decl + "pass")
                  + f"def {orelse}():\n" + _indent(decl + "pass")
                  + f"def {get}():\n" + _indent(f"return ({reads})")
                  + f"def {put}(ag__state):\n" + _indent(decl + assign)
                  + f"{RUNTIME}.if_stmt(ag__cond, {body}, {orelse}, {get}, {put}, "
                  + f"{tuple(names)!r}, {nouts})\n")
        code = _locate(ast.parse(source), node.test, force=True).body
        code[-1].value.args[0] = node.test
        return code

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        if _frame_bound(node.values):
            return node
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for left in reversed(node.values[:-1]):  # a and b and c -> and_(a, and_(b, c))
            result = _runtime_call(name, [_thunk(left), _thunk(result)], left)
        return result

    def visit_Compare(self, node):
        """`a < b < c` -> `compare_chain(lambda: a, (("Lt", lambda: b), ("Lt", lambda: c)))`:
        the `and` of the comparisons with Python's evaluation order (each operand once, the
        rest only when the comparisons so far hold: per sample for DataNodes)."""
        node = self.generic_visit(node)
        if len(node.ops) < 2 or _frame_bound([node.left, *node.comparators]):
            return node
        rest = ast.Tuple([ast.Tuple([ast.Constant(type(op).__name__), _thunk(c)], ast.Load())
                          for op, c in zip(node.ops, node.comparators, strict=True)],
                         ast.Load())
        return _runtime_call("compare_chain", [_thunk(node.left), _locate(rest, node)], node)

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _runtime_call("not_", [node.operand], node)
        return node

    def visit_Call(self, node):
        node = self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in _FRAME_BUILTINS:
            return node
        args = _locate(ast.Tuple(node.args, ast.Load()), node)
        kwargs = ast.Dict([None if k.arg is None else ast.Constant(k.arg) for k in node.keywords],
                          [k.value for k in node.keywords])
        kwargs = _locate(kwargs if node.keywords else ast.Constant(None), node)
        return _runtime_call("converted_call", [node.func, args, kwargs], node)


# -- compiling and caching ---------------------------------------------------------------------
_FUTURE_FLAGS = functools.reduce(
    int.__or__, (getattr(__future__, f).compiler_flag for f in __future__.all_feature_names))
_LIBRARY_DIRS = tuple(
    os.path.join(os.path.abspath(p), "")
    for p in {*(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")),
              *getattr(site, "getsitepackages", list)(),
              os.path.dirname(os.path.dirname(os.path.abspath(__file__)))})
_cache = weakref.WeakKeyDictionary()


def is_user_function(func):
    """Whether `converted_call` converts the Python function `func`: not when it is marked
    with `dali.pipeline.do_not_convert`, belongs to a `dali`/`nvidia` module or lives in a
    file of the standard library, site-packages or this package (library code is called as
    is; only the user's own source is rewritten)."""
    if getattr(func, "_dali_do_not_convert", False):
        return False
    if (func.__module__ or "").split(".")[0] in ("dali", "nvidia"):
        return False
    return not os.path.abspath(func.__code__.co_filename).startswith(_LIBRARY_DIRS)


def callee(f):
    """What `runtime.converted_call` calls in place of `f`: the converted function for user
    functions, bound methods and `functools.partial`s of them, `f` itself otherwise."""
    if isinstance(f, functools.partial):
        inner = callee(f.func)
        return f if inner is f.func else functools.partial(inner, *f.args, **f.keywords)
    if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType):
        inner = callee(f.__func__)
        return f if inner is f.__func__ else types.MethodType(inner, f.__self__)
    if isinstance(f, types.FunctionType) and is_user_function(f):
        return convert(f)
    return f


runtime.register_converter(callee)


def convert(func):
    """The function `func` with its conditionals rewritten (see the module docstring).

    Converted functions are cached (weakly, by `func`).  Returned unchanged: lambdas,
    functions marked with `do_not_convert`, functions whose source `inspect` cannot find
    (defined in `exec`'d strings or the interactive prompt) or no longer matches them.

    Parameters
    ----------
    func : function
        A Python function; bound methods and other callables are returned as they are.
    """
    if (not isinstance(func, types.FunctionType) or func.__code__.co_name == "<lambda>"
            or getattr(func, "_dali_do_not_convert", False)
            or getattr(func, "_dali_converted", False) or RUNTIME in func.__code__.co_freevars):
        return func  # the last two: converted, or defined inside converted code
    converted = _cache.get(func)
    if converted is None:
        converted = _cache[func] = _convert(func)
    return converted


def _parse_def(func):
    """The `def` of `func` from its source file, at its original lines and columns."""
    try:
        lines, start = inspect.findsource(func)
        source = "".join(inspect.getblock(lines[start:]))
        indented = source[:1].isspace()  # a method or nested function: parse it inside an `if`
        tree = ast.parse("if 1:\n" + source if indented else source)
    except (OSError, TypeError, SyntaxError):  # no source, or not the one `func` came from
        return None
    ast.increment_lineno(tree, start - indented)
    fn = tree.body[0].body[0] if indented else tree.body[0]
    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == func.__code__.co_name:
        return fn
    return None


def _find_code(code, name):
    todo = [code]
    while todo:
        for const in todo.pop(0).co_consts:
            if isinstance(const, types.CodeType):
                if const.co_name == name:
                    return const
                todo.append(const)
    return None


def _name_branches(code, name):
    """`code` with the generated branch and state functions in it (`ag__if_body_1`, ...)
    renamed after the user's function that contains them, so that traceback lines read
    "in <that function>"."""
    own = name if code.co_name.startswith(RUNTIME) else code.co_name
    consts = tuple(_name_branches(c, own) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_consts=consts, co_name=own)


def _convert(func):
    fn = _parse_def(func)
    if fn is None:
        return func
    fn.decorator_list = []  # they were applied to `func` already
    fn = _Converter().visit(fn)
    # Compile inside a factory whose locals are the free variables, so that they stay free
    # variables (their cells are `func`'s own), and inside the owner class for private-name
    # mangling and `super()`.  Renamed, so that its name in the body is not the factory's.
    fn.name = "ag__converted"
    freevars = [RUNTIME, *(v for v in func.__code__.co_freevars if v != "__class__")]
    owner = getattr(func.__code__, "co_qualname", func.__qualname__).split(".")[-2:-1]
    nest = f"    class {owner[0]}:\n        pass\n" if owner and owner[0] != "<locals>" else ""
    module = ast.parse("def ag__factory():\n" + _indent("\n".join(f"{v} = None" for v in freevars))
                       + (nest or "    pass\n"))
    (module.body[0].body[-1].body if nest else module.body[0].body)[-1] = fn
    code = compile(module, func.__code__.co_filename, "exec",
                   flags=func.__code__.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    code = _find_code(code, fn.name)
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or (), strict=True))
    cells[RUNTIME] = types.CellType(runtime)
    if code is None or not set(code.co_freevars) <= cells.keys():
        return func  # the source on disk is not the one `func` was compiled from
    code = _name_branches(code, func.__code__.co_name)
    if sys.version_info >= (3, 11):
        code = code.replace(co_qualname=func.__code__.co_qualname)
    errors.record_converted(code)
    new = types.FunctionType(code, func.__globals__, func.__name__, func.__defaults__,
                             tuple(cells[v] for v in code.co_freevars))
    new.__kwdefaults__ = func.__kwdefaults__
    for attr in ("__module__", "__qualname__", "__doc__", "__annotations__"):
        setattr(new, attr, getattr(func, attr))
    # `__dict__` carries `__wrapped__` of a decorated function; `new.__wrapped__ = func` would
    # keep `func` alive through the weak cache.
    new.__dict__.update(func.__dict__)
    new._dali_converted = True
    return new
