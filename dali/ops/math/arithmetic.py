"""Arithmetic on DataNodes: `x + 1`, `x < y`, `dali.math.sqrt(x)`, ... as one operator.

Every expression becomes a `_ArithmeticGenericOp` node, as in DALI.  Its `expression_desc`
describes the computation in DALI's grammar::

    expr  := name "(" arg (" " arg)* ")"
    arg   := "&" input_index | "$" constant_index ":" type | expr

so `x + 1` is `add(&0 $0:int32)` with `integer_constants=[1]`.  Scalar constants travel as
arguments (integers in `integer_constants`, floats in `real_constants`, which hold float32
values), arrays and lists become Constant nodes.  Type rules and kernels are in
`_arithmetic_kernels`.

Operands are broadcast per sample, NumPy style (`(H, W, 3) + (3,)`); layouts must be equal or
one a suffix of the other, and the output takes the layout of the operand with the most
dimensions.  A batch whose inputs all have uniform shapes is computed in one NumPy call.

When an operand is on the GPU the operator is (as in DALI), its CPU operands moved there; one
launch of `arithmetic.cu` evaluates the expression per element (`_arithmetic_gpu`).

Chains such as `x * 0.5 + 1` are two operators (as in DALI), each a pass over memory.  When a
CPU operator's output feeds only another CPU arithmetic operator, as its only input (no
pipeline output, sink or argument input), `link` pairs them at `build()`: the producer
evaluates the consumer's expression with its own substituted for the input (`add(mul(&0
$0:float32) $1:int32)`), in one pass, and the consumer hands that batch on as its output.
Each operation still rounds to its own type in order, so the values are those of the two
operators; the pair is fused only when the consumer gives the producer's type and cannot fail
at run time (no `//` or `%`), and a consumer whose types are rejected still raises in its own
name.
"""

from __future__ import annotations

import re

import numpy as np

from dali import _operator, _registry, _types, tensors
from dali._ext.kernels import arith as _loops
from dali._graph import data_node
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.math import _arithmetic_gpu
from dali.ops.math import _arithmetic_kernels as kernels
from dali.ops.tensor import constant

_TYPE_NAMES = {T.BOOL: "bool", T.INT8: "int8", T.INT16: "int16", T.INT32: "int32",
               T.INT64: "int64", T.UINT8: "uint8", T.UINT16: "uint16", T.UINT32: "uint32",
               T.UINT64: "uint64", T.FLOAT16: "float16", T.FLOAT: "float32",
               T.FLOAT64: "float64"}
_NAMED_TYPES = {v: k for k, v in _TYPE_NAMES.items()}
_CHUNK_ELEMENTS = 1 << 16
_RAISING = frozenset({"div", "mod"})        # integer division by zero is an error


# ---------------------------------------------------------------------------------------------
# Front end: Python operands -> one operator call
# ---------------------------------------------------------------------------------------------

@data_node.implements("arithmetic")
def arithm_op(name, *operands):
    """Record the arithmetic operation `name` (e.g. "add", "sqrt") on `operands`.

    DataNodes are the operator's inputs; Python and NumPy scalars and `types.ScalarConstant`s
    become typed scalar constants; lists and arrays become Constant nodes.
    """
    sym = kernels.SYMBOL.get(name, name)
    edges, ints, reals, parts = [], [], [], []
    for k, x in enumerate(operands):
        x = _as_operand(x, sym, k)
        if isinstance(x, data_node.DataNode):
            parts.append(f"&{len(edges)}")
            edges.append(x)
            continue
        dtype, value = x
        if _types.is_float(dtype):
            parts.append(f"${len(reals)}:{_TYPE_NAMES[dtype]}")
            reals.append(float(value))
        else:
            parts.append(f"${len(ints)}:{_TYPE_NAMES[dtype]}")
            ints.append(int(value))
    if not edges:
        raise ValueError(f"Operator dali.math.{name} expects from 1 to 64 inputs, but received "
                         "0: at least one operand must be a DataNode.")
    kwargs = {"expression_desc": f"{name}({' '.join(parts)})",
              "integer_constants": ints or None, "real_constants": reals or None}
    # On the GPU when an input is (as DALI chooses); the build moves the CPU inputs there.
    device = "gpu" if any(e.device == "gpu" for e in edges) else "cpu"
    return _operator.call(ArithmeticGenericOp, edges, kwargs, init_device=device)


_PYTHON_SCALARS = {bool: T.BOOL, int: T.INT32, float: T.FLOAT}


def _as_operand(x, sym, k):
    """A DataNode, or (DALI type, value) of a scalar constant (DALI's rules for constants).

    Python ints are INT32 whatever their value: one out of range fails when the pipeline
    runs, as in DALI.
    """
    if isinstance(x, data_node.DataNode):
        return x
    if isinstance(x, constant.ScalarConstant):
        return x.dtype, x.value
    if type(x) in _PYTHON_SCALARS:
        return _PYTHON_SCALARS[type(x)], x
    if isinstance(x, (int, float)):
        # Subclasses such as np.float64 are not taken as scalars: DALI rejects them.
        raise TypeError(
            f"Argument to arithmetic operation not supported. Got {type(x)}, expected a "
            "return value from other DALI Operator or a constant value of type 'bool', 'int', "
            "'float' or 'dali.types.Constant'.")
    if isinstance(x, np.generic) or (isinstance(x, np.ndarray) and x.ndim == 0):
        if x.dtype.kind not in "biuf":
            raise TypeError(f"Expected scalar value of type 'bool', 'int' or 'float', got "
                            f"{type(x)}.")
        return _types.dali_type_of(x.dtype), x.item()
    if isinstance(x, (list, tuple)):
        if _has_data_node(x):
            raise TypeError(
                f"The input {k} of operator `{sym}` must be a `DataNode` or a compatible "
                f"constant. Got a `{type(x).__name__}` with nested `DataNode`(s).\nDid you pass "
                "a return value of an operator producing multiple outputs?")
    elif not isinstance(x, np.ndarray):
        raise TypeError(f"Expected scalar value of type 'bool', 'int' or 'float', got "
                        f"{type(x)}.")
    try:
        arr = np.asarray(x)
    except ValueError as e:
        raise TypeError(f"Unexpected type: {type(x)} ({e})") from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"Unexpected type: {type(x)}: a constant operand must be numeric")
    return data_node._call("constant", arr)


def _has_data_node(value):
    return any(isinstance(v, data_node.DataNode) or
               (isinstance(v, (list, tuple)) and _has_data_node(v)) for v in value)


# ---------------------------------------------------------------------------------------------
# Expression trees
# ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(?P<op>[A-Za-z_]\w*)\(|(?P<close>\))|&(?P<edge>\d+)"
                    r"|\$(?P<const>\d+):(?P<type>\w+))")


class _Expr:
    """A node of a parsed expression: an operation, an input (`&i`) or a constant (`$i:t`)."""

    __slots__ = ("kind", "name", "index", "type", "args")

    def __init__(self, kind, name=None, index=None, type=None, args=()):
        self.kind, self.name, self.index, self.type, self.args = kind, name, index, type, args


def parse(desc: str) -> _Expr:
    """Parse an `expression_desc`; raises ValueError naming the position of a syntax error."""
    pos = 0

    def fail(what):
        raise ValueError(f"invalid expression_desc {desc!r}: {what} at position {pos}")

    def token():
        nonlocal pos
        m = _TOKEN.match(desc, pos)
        if m is None:
            fail("unexpected text")
        pos = m.end()
        return m

    def expr(m):
        name = m.group("op")
        if name not in kernels.ARITY:
            fail(f"unknown operation `{name}`")
        args = []
        while True:
            t = token()
            if t.group("close"):
                break
            if t.group("op"):
                args.append(expr(t))
            elif t.group("edge"):
                args.append(_Expr("input", index=int(t.group("edge"))))
            else:
                tname = t.group("type")
                if tname not in _NAMED_TYPES:
                    fail(f"unknown constant type `{tname}`")
                args.append(_Expr("const", index=int(t.group("const")),
                                  type=_NAMED_TYPES[tname]))
        if len(args) != kernels.ARITY[name]:
            fail(f"`{name}` takes {kernels.ARITY[name]} operands, got {len(args)}")
        return _Expr("op", name=name, args=args)

    first = token()
    if not first.group("op"):
        fail("expected an operation")
    tree = expr(first)
    if desc[pos:].strip():
        fail("trailing text")
    return tree


def _leaves(e):
    if e.kind == "op":
        for a in e.args:
            yield from _leaves(a)
    else:
        yield e


def _ops(e):
    if e.kind == "op":
        yield e.name
        for a in e.args:
            yield from _ops(a)


def _substituted(e, inner, n_ints, n_reals):
    """A copy of the one-input tree `e` with `inner` for input 0 and its constants renumbered
    after `n_ints` integer and `n_reals` real constants."""
    if e.kind == "input":
        return inner
    if e.kind == "const":
        shift = n_reals if _types.is_float(e.type) else n_ints
        return _Expr("const", index=e.index + shift, type=e.type)
    return _Expr("op", name=e.name, args=[_substituted(a, inner, n_ints, n_reals)
                                          for a in e.args])


def link(graph, ops, sinks=()):
    """Pair each CPU arithmetic operator of `ops` (one per node of `graph`, in its order) whose
    output only a CPU arithmetic operator with one input and no `//` or `%` reads, and that is
    no such consumer itself: the producer then computes both (see the module docstring)."""
    by_node = {id(op.spec.node): op for op in ops}
    uses = {}                                  # id(DataNode) -> [consumer node]
    for n in graph.nodes:
        for edge in (*n.inputs, *n.arg_inputs.values()):
            uses.setdefault(id(edge), []).append(n)
    kept = {id(e) for e in graph.outputs} | {id(e) for e in sinks}
    for n in graph.nodes:
        op = by_node[id(n)]
        if type(op) is not ArithmeticGenericOp or op.fused_producer is not None or \
                n.device != "cpu" or id(n.outputs[0]) in kept:
            continue
        readers = uses.get(id(n.outputs[0]), [])
        if len(readers) != 1 or readers[0].device != "cpu" or len(readers[0].inputs) != 1 or \
                readers[0].arg_inputs:
            continue
        consumer = by_node[id(readers[0])]
        if type(consumer) is ArithmeticGenericOp and _RAISING.isdisjoint(_ops(consumer.tree)):
            op.fused_consumer = consumer
            consumer.fused_producer = op


# ---------------------------------------------------------------------------------------------
# The operator
# ---------------------------------------------------------------------------------------------

@_registry.register
class ArithmeticGenericOp(_operator.Operator):
    schema = Schema(
        "_arithmetic_generic_op", inputs=(1, 64), outputs=1, devices=("cpu", "gpu"),
        class_name="_ArithmeticGenericOp", internal=True,
        doc="Evaluates an arithmetic expression on its inputs (what DataNode operators and "
            "`dali.math` functions create).",
        args=[Arg("expression_desc", T.STRING, REQUIRED,
                  doc='The expression, e.g. "add(&0 $0:int32)": `&i` is input i, `$i:type` '
                      "constant i of `integer_constants` or `real_constants`."),
              Arg("integer_constants", T._INT64_VEC, None,
                  doc="Values of the integer and boolean constants."),
              Arg("real_constants", T._FLOAT_VEC, None,
                  doc="Values of the floating-point constants (kept as float32).")])

    def setup(self):
        self._programs = {}
        self.fused_consumer = None      # `link`: the operator whose expression this one computes
        self.fused_producer = None      # `link`: the operator that computes this one's
        self.tree = parse(self.args["expression_desc"])
        self.ints = list(self.args["integer_constants"] or [])
        self.reals = list(self.args["real_constants"] or [])
        for leaf in _leaves(self.tree):
            if leaf.kind == "const":
                pool = self.reals if _types.is_float(leaf.type) else self.ints
                if leaf.index >= len(pool):
                    kind = "real" if _types.is_float(leaf.type) else "integer"
                    raise ValueError(f"expression_desc refers to {kind} constant {leaf.index} "
                                     f"but only {len(pool)} are given")

    # -- phase 1 ------------------------------------------------------------------------------
    def infer(self, ws):
        # Types, layout and constants depend only on the kind of inputs: worked out once and
        # kept in `self._programs` (a cache keyed by the inputs' kinds); so are the output
        # descriptions of uniform batches, per input shapes and batch size.  The program of
        # this batch travels in the Plan.
        tls = ws.inputs
        key = tuple([(tensors.storage_of(tl).dtype, tensors.storage_of(tl).ndim, tl._layout)
                     for tl in tls])
        prog = self._programs.get(key)
        if prog is None:
            prog = self._programs[key] = self._compile(ws)
        if prog.through:
            return _operator.Plan([_operator.OutputDesc(None, prog.dtype, prog.layout,
                                                        prog.ndim)], prog=prog)
        per = []
        for tl in tls:
            shape = tensors.storage_of(tl).uniform_shape
            if shape is None:
                break
            per.append(shape)
        else:
            if ws.batch_size:
                ukey = (tuple(per), ws.batch_size)
                descs = prog.uniform_descs.get(ukey)
                if descs is None:
                    shape = self._broadcast(per, 0, ws)
                    descs = [_operator.OutputDesc([shape] * ws.batch_size, prog.dtype,
                                                  prog.layout, prog.ndim)]
                    if len(prog.uniform_descs) >= 64:
                        prog.uniform_descs.clear()
                    prog.uniform_descs[ukey] = descs
                return _operator.Plan(descs, prog=prog)
        all_shapes = [tl.shape() for tl in tls]
        shapes = [self._broadcast([s[i] for s in all_shapes], i, ws)
                  for i in range(ws.batch_size)]
        return _operator.Plan([_operator.OutputDesc(shapes, prog.dtype, prog.layout, prog.ndim)],
                              prog=prog)

    def _compile(self, ws):
        n_in = len(ws.inputs)
        for leaf in _leaves(self.tree):
            if leaf.kind == "input" and leaf.index >= n_in:
                raise self.error(f"expression_desc refers to input {leaf.index} but the "
                                 f"operator has {n_in} inputs")
        prog = self._program(ws, self.tree, self.ints, self.reals)
        if self.fused_producer is not None:
            # The producer computed this expression when it gives the input's type (`link`).
            prog.through = prog.dtype == tensors.storage_of(ws.inputs[0]).dtype
        elif self.fused_consumer is not None:
            c = self.fused_consumer
            tree = _substituted(c.tree, self.tree, len(self.ints), len(self.reals))
            try:
                fused = self._program(ws, tree, self.ints + c.ints, self.reals + c.reals)
            except (TypeError, ValueError, OverflowError):
                return prog             # the consumer raises it in its own name
            if fused.dtype == prog.dtype:
                return fused
        return prog

    def _program(self, ws, tree, ints, reals):
        """The `_Program` of `tree` (constants from `ints` and `reals`) on `ws`'s inputs."""
        prog = _Program(tree, ints, reals)
        otype, prog.ndim, prog.layout = self._types_and_layout(tree, ws, prog)
        prog.dtype = _types.dtype_of(otype)
        if tree.kind == "op" and all(a.kind != "op" for a in tree.args):
            prog.ufunc = kernels.ufunc_for(tree.name, otype)
            prog.operands = [(a.kind == "input", a.index if a.kind == "input"
                              else prog.consts[id(a)]) for a in tree.args]
            prog.quiet = not _types.is_float(otype)
            prog.loop = _loops.loop_index(prog.ufunc, prog.dtype)
            prog.loop_consts = {id(v): np.ascontiguousarray(v, prog.dtype)
                                for is_input, v in prog.operands if not is_input}
        if tree.kind == "op":
            program = self._steps(prog, otype)
            if program is not None:
                prog.sample_steps = program[:4]
                prog.steps = None if program[4] or prog.ufunc is not None else program[:3]
        return prog

    def _steps(self, prog, otype):
        """(steps, scratch chunks, constants, work dtype, converts) of the expression for
        `_loops.run_program` and `run_samples`, or None.

        Every operation is one ufunc loop of the work type (the output's; for a comparison at
        the root, the type its operands are cast to, the loop giving bool), which casts its
        operands to that type first (then each step gives what `evaluate` gives, the
        constants cast here as it casts them), and every input has that type or one whose C++
        conversion to it is NumPy's (`converts`: some input does not have it, or the root is
        a comparison; only `run_samples` does those)."""
        steps, consts, temps = [], [], []
        tree, work, root_loop = prog.tree, prog.dtype, None
        converts = False
        if tree.kind == "op" and kernels.compare_ufunc(tree.name) is not None:
            ct = kernels.compare_type(*[self._type_of(prog, a) for a in tree.args])
            if ct is None:
                return None
            work, converts = _types.dtype_of(ct), True
            root_loop = _loops.loop_index(kernels.compare_ufunc(tree.name), work, prog.dtype)
            if root_loop < 0:
                return None

        def emit(e):
            nonlocal converts
            if e.kind == "const":         # `evaluate` casts it to the operation's type
                consts.append(np.ascontiguousarray(prog.consts[id(e)].astype(work)))
                return (_loops.SRC_CONST, len(consts) - 1)
            if e.kind == "input" and _converts_as_cpp(prog.types[id(e)][1], work):
                converts = converts or prog.types[id(e)][1] != work
                return (_loops.SRC_INPUT, e.index)
            if e is tree and root_loop is not None:
                ufunc, loop = kernels.compare_ufunc(e.name), root_loop
            elif prog.types[id(e)][1] != work or e.kind == "input":
                return None
            else:
                ufunc = kernels.ufunc_for(e.name, otype)
                loop = -1 if ufunc is None else _loops.loop_index(ufunc, work)
            if loop < 0:
                return None
            operands = []
            for a in e.args:
                ref = emit(a)
                if ref is None:
                    return None
                operands.append(ref)
            for kind, index in operands:          # scratch chunks are free again once read
                if kind == _loops.SRC_TEMP:
                    temps.remove(index)
            index = min(set(range(len(temps) + 1)) - set(temps))
            temps.append(index)
            steps.append((ufunc, loop, operands, (_loops.SRC_TEMP, index)))
            return (_loops.SRC_TEMP, index)

        if emit(tree) is None or len(steps) > _loops.MAX_STEPS:
            return None
        ufunc, loop, operands, _ = steps[-1]
        steps[-1] = (ufunc, loop, operands, (_loops.SRC_OUT, 0))
        used = [i for _, _, ops, res in steps for kind, i in (*ops, res)
                if kind == _loops.SRC_TEMP]
        return steps, 1 + max(used, default=-1), consts, work, converts

    @staticmethod
    def _type_of(prog, e):
        return e.type if e.kind == "const" else prog.types[id(e)][0]

    @staticmethod
    def _const_value(leaf, prog):
        t = leaf.type
        if _types.is_float(t):
            return np.asarray(np.float32(prog.reals[leaf.index])).astype(_types.dtype_of(t))
        v = prog.ints[leaf.index]
        if t == T.BOOL:
            return np.asarray(bool(v))
        info = np.iinfo(_types.dtype_of(t))
        if not info.min <= v <= info.max:
            raise OverflowError(f"Integer constant {v} out of range for {_TYPE_NAMES[t]}.")
        return np.asarray(v, dtype=_types.dtype_of(t))

    def _types_and_layout(self, e, ws, prog):
        """(type, ndim, layout) of a subexpression; checks the type rules and layouts and
        records constants and types in `prog`."""
        if e.kind == "input":
            tl = ws.inputs[e.index]
            prog.types[id(e)] = (tl.dtype, tensors.storage_of(tl).dtype)
            return tl.dtype, tl.ndim(), tl.layout()
        if e.kind == "const":
            prog.consts[id(e)] = self._const_value(e, prog)
            return e.type, 0, ""
        subs = [self._types_and_layout(a, ws, prog) for a in e.args]
        t = kernels.result_type(e.name, [s[0] for s in subs])
        prog.types[id(e)] = (t, _types.dtype_of(t))
        ndim = max(s[1] for s in subs)
        layouts = [s[2] for s in subs]
        for i in range(len(subs)):
            for j in range(i + 1, len(subs)):
                a, b = layouts[i], layouts[j]
                if a and b and not (a.endswith(b) or b.endswith(a)):
                    raise self.error(
                        f"Layouts of subexpressions {i} and {j} for arithmetic operation "
                        f"{e.name} do not match. They must be equal or one must be a suffix of "
                        f"the other. Got {a} and {b}.")
        layout = next((s[2] for s in subs if s[1] == ndim and s[2]), "")
        return t, ndim, layout

    def _broadcast(self, shapes, i, ws):
        try:
            return tuple(int(x) for x in np.broadcast_shapes(*shapes))
        except ValueError:
            shown = "\n".join(f"{' x '.join(map(str, s)) or 'scalar'} (input {k})"
                              for k, s in enumerate(shapes))
            raise ws.sample_error(i, f"Can't broadcast shapes:\n{shown}") from None

    # -- phase 2 ------------------------------------------------------------------------------
    def run_cpu(self, ws, plan):
        out = ws.outputs[0]
        if ws.batch_size == 0:
            return
        prog = plan.prog
        if prog.through:
            ws.outputs = [ws.input_storage(0)]
            return
        if prog.steps is not None and prog.run_program(ws.thread_pool, ws.inputs, out):
            return
        views = _whole_batch(ws.inputs, out) if prog.ufunc is not None else None
        if views is not None and prog.run_loop(ws.thread_pool, *views):
            return
        if prog.run_samples(ws.thread_pool, ws.inputs, out):
            return
        if prog.ufunc is not None:
            if views is not None:
                if prog.quiet:
                    prog.apply(*views)
                else:
                    with np.errstate(all="ignore"):
                        prog.apply(*views)
                return
        dense_out = out.dense()
        dense_in = [tensors.storage_of(tl).dense() for tl in ws.inputs]
        with np.errstate(all="ignore"):
            if dense_out is not None and all(d is not None for d in dense_in):
                self._run_batch(ws, prog, dense_in, dense_out)
            else:
                self._run_samples(ws, prog, out.samples())

    def run_gpu(self, ws, plan):
        """The expression's register program (`arithmetic.cu`), one launch for the batch; an
        integer division by zero is reported after the stream's work, naming the first sample
        that met one."""
        out = ws.outputs[0]
        if ws.batch_size == 0:
            return
        prog = plan.prog
        if prog.gpu is None:
            prog.gpu = _arithmetic_gpu.compile(prog.tree, prog)
        ins = [ws.input_storage(k) for k in range(len(ws.inputs))]
        launch = _arithmetic_gpu.launch(prog.gpu, out.shapes, [st.shapes for st in ins],
                                        [st.dtype for st in ins], out.offsets,
                                        [st.offsets for st in ins])
        addresses = np.array([st.ptr for st in ins], np.uint64)
        errors = ws.gpu.upload(np.zeros(ws.batch_size, np.int32)) if prog.gpu.divides \
            else np.uint64(0)
        ws.gpu.launch(_arithmetic_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      launch.arguments(addresses, out, errors))
        if prog.gpu.divides:
            flags = ws.gpu.download(errors.ptr, errors.nbytes).view(np.int32)
            if flags.any():
                raise ws.sample_error(int(np.flatnonzero(flags)[0]), "Integer division by zero.")

    def _run_batch(self, ws, prog, dense_in, dense_out):
        arrays = _aligned(dense_in, dense_out.ndim)
        # Groups of samples small enough for the temporaries to stay in cache.
        volume = max(1, dense_out[0].size)
        step = max(1, _CHUNK_ELEMENTS // volume)
        for start in range(0, ws.batch_size, step):
            part = slice(start, start + step)
            try:
                dense_out[part] = self._eval(prog, prog.tree, [a[part] for a in arrays])[0]
            except kernels.IntegerDivisionByZero as e:
                mask = np.broadcast_to(e.mask, dense_out[part].shape)
                first = int(np.argmax(mask.reshape(mask.shape[0], -1).any(axis=1)))
                raise ws.sample_error(start + first, str(e)) from None

    def _run_samples(self, ws, prog, outs):
        ins = [tensors.storage_of(tl).samples() for tl in ws.inputs]
        for i, dst in enumerate(outs):
            try:
                dst[...] = self._eval(prog, prog.tree, [s[i] for s in ins])[0]
            except kernels.IntegerDivisionByZero as e:
                raise ws.sample_error(i, str(e)) from None

    def _eval(self, prog, e, arrays):
        """(value, DALI type) of a subexpression."""
        if e.kind == "input":
            return arrays[e.index], prog.types[id(e)][0]
        if e.kind == "const":
            return prog.consts[id(e)], e.type
        args, types = zip(*[self._eval(prog, a, arrays) for a in e.args], strict=True)
        t, dtype = prog.types[id(e)]
        value = kernels.evaluate(e.name, list(args), list(types), t)
        return np.asarray(value).astype(dtype, copy=False), t


class _Program:
    """What `infer` works out once per kind of inputs (dtypes, ndims, layouts).

    The expression (the operator's, or with a fused consumer's, see `link`) and its constant
    pools; the output dtype, ndim and layout; the constants' values and every subexpression's
    (DALI type, NumPy dtype), by `id()` of the tree node; and, when the expression is one
    elementwise operation on inputs and constants, the ufunc that computes a whole batch in one
    call.
    """

    __slots__ = ("tree", "ints", "reals", "dtype", "ndim", "layout", "consts", "types",
                 "ufunc", "operands", "quiet", "uniform_descs", "loop", "loop_consts", "steps",
                 "sample_steps", "gpu", "through")

    def __init__(self, tree, ints, reals):
        self.tree, self.ints, self.reals = tree, ints, reals
        self.through = False        # the fused producer computed it: the input is the output
        self.consts = {}
        self.types = {}
        self.ufunc = None
        self.steps = None           # (steps, scratch chunks, constants) of `run_program`
        self.sample_steps = None    # (..., work dtype) for `run_samples`: inputs of other
                                    # types too, a comparison at the root
        self.uniform_descs = {}     # (input shapes, batch size) -> [OutputDesc]
        self.loop = -1              # the ufunc's loop on operands of `dtype`, -1 if none
        self.gpu = None             # the `_arithmetic_gpu.Program`, made at the first GPU run

    def run_loop(self, pool, ins, out):
        """`apply` as NumPy's own loop in chunks on `pool`, when every operand already has the
        output's dtype and is flat (the output's size, contiguous) or a constant; False when
        that does not hold."""
        if self.loop < 0 or not out.flags.c_contiguous:
            return False
        args = []
        for is_input, x in self.operands:
            if not is_input:
                args.append(self.loop_consts[id(x)])
                continue
            a = ins[x]
            if a.dtype != self.dtype or a.size != out.size or not a.flags.c_contiguous:
                return False
            args.append(a)
        _loops.run(pool, self.ufunc, self.loop, args, out)
        return True

    def run_program(self, pool, tls, out):
        """The whole expression chunk by chunk on `pool` (`_loops.run_program`), when the
        output and every input are flat batches of the output's elements (or one value);
        False when that does not hold."""
        flat_out = out.flat() if out.base is not None else None
        if flat_out is None or not flat_out.flags.c_contiguous:
            return False
        ins = []
        for tl in tls:
            st = tensors.storage_of(tl)
            if st.base is None or not (st.shapes is out.shapes or
                                       np.array_equal(st.shapes, out.shapes)):
                return False
            flat = st.flat()
            if not flat.flags.c_contiguous:
                return False
            ins.append(flat)
        steps, ntemps, consts = self.steps
        _loops.run_program(pool, steps, ntemps, ins, consts, flat_out)
        return True

    def run_samples(self, pool, tls, out):
        """The whole expression sample by sample on `pool` (`_loops.run_samples`): samples
        stored apart, operands broadcast per sample, inputs of other types; False when the
        expression or an input does not allow it."""
        if self.sample_steps is None:
            return False
        steps, ntemps, consts, work = self.sample_steps
        return _loops.run_samples(pool, steps, ntemps, [tensors.storage_of(tl) for tl in tls],
                                  consts, out, work)

    def apply(self, ins, out):
        """`out[...] = op(operands)` for batch views `ins` aligned with `out`."""
        args = [ins[x] if is_input else x for is_input, x in self.operands]
        self.ufunc(*args, out=out, dtype=self.dtype, casting="unsafe")


def _converts_as_cpp(src, dst):
    """Whether C++'s conversion of `src` values to `dst` is NumPy's `astype`: the same type, or
    an integer or bool widened or made floating, or float32 made float64 (never a narrowing,
    where C++ leaves overflow undefined)."""
    if src == dst:
        return True
    if dst.kind not in "biuf" or dst.itemsize > 8 or src.itemsize > 8 or \
            np.float16 in (src.type, dst.type):
        return False
    if src.kind in "biu":
        return dst.kind == "f" or np.can_cast(src, dst, "safe")
    return src == np.float32 and dst == np.float64


def _aligned(arrays, rank):
    """Dense batches padded after the batch dimension to `rank` dimensions, so that NumPy
    broadcasting aligns the trailing (sample) dimensions as it does per sample."""
    if all(d.ndim == rank for d in arrays):
        return arrays
    return [d.reshape(d.shape[:1] + (1,) * (rank - d.ndim) + d.shape[1:]) for d in arrays]


def _whole_batch(tls, out):
    """(input views, output view) that one ufunc call can compute the batch on, or None.

    Dense batches (uniform shapes) broadcast like their samples; otherwise, inputs whose samples
    have exactly the output's shapes are computed as flat arrays of all their elements.
    """
    dense_out = out.dense()
    if dense_out is not None:
        dense_in = []
        for tl in tls:
            d = tensors.storage_of(tl).dense()
            if d is None:
                break
            dense_in.append(d)
        else:
            return _aligned(dense_in, dense_out.ndim), dense_out
    if out.base is None:
        return None
    flat_in = []
    for tl in tls:
        st = tensors.storage_of(tl)
        if st.base is None or not (st.shapes is out.shapes or
                                   np.array_equal(st.shapes, out.shapes)):
            return None
        flat_in.append(st.flat())
    return flat_in, out.flat()
