"""Host side of the arithmetic operator's CUDA kernel (`arithmetic.cu`): the register program
of an expression and the per-sample descriptors of a batch, for the operator's `run_gpu`.

`compile(tree, prog)` takes the operator's parsed expression and the `_Program` its `infer`
worked out (every subexpression's type, the constants' values) and emits the operations
`ArithmeticGenericOp._eval` performs, in the same types: a leaf is loaded in its own type,
each operand converted to the type its operation computes in (the result type; a comparison's
common type; for shifts the result type, then C++'s promoted type), then the operation.

`launch(program, out_shapes, in_shapes, in_dtypes)` describes a batch (NumPy broadcasting per
sample, inputs of any shape that broadcasts to the output's).  A launch is
`kernel(grid, block, launch.arguments(inputs, out, errors))`: `inputs` the input batches' base
addresses (uint64, one per input), `out` the output batch, `errors` one int32 per sample,
zeroed, set to 1 where an integer `//` or `%` met a zero divisor (`program.divides`).
"""

from __future__ import annotations

import typing

import numpy as np

from dali import _types
from dali.ops.math import _arithmetic_kernels as kernels

DIMS = 8                        # ARITH_DIMS of arithmetic.cu
REGS = 16                       # ARITH_REGS
INSTR = 6                       # ints of an instruction
OUT_FIELDS = 2 + DIMS
IN_FIELDS = 2 + DIMS
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
KERNEL = "arith_program"

# the type codes and opcodes of arithmetic.cu, in its order
TYPES = tuple(np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                    np.uint32, np.int64, np.uint64, np.float32, np.float64))
TYPE_CODES = {t: k for k, t in enumerate(TYPES)}
U64_I64, I64_U64 = len(TYPES), len(TYPES) + 1
OPCODES = (
    "load", "const", "convert",
    "add", "sub", "mul", "div", "mod", "pow", "min", "max", "clamp",
    "bitand", "bitor", "bitxor", "lshift", "rshift",
    "eq", "neq", "lt", "leq", "gt", "geq",
    "minus", "plus", "abs", "bitnot", "atan2",
    "sqrt", "rsqrt", "cbrt", "exp", "log", "log2", "log10", "fabs", "floor", "ceil",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh")
_OP = {name: k for k, name in enumerate(OPCODES)}
_OP.update(fdiv=_OP["div"], fpow=_OP["pow"])     # the same operation on float operands
FLAT, SCALAR, STRIDED = range(3)                 # how an input of a sample is read


class Program(typing.NamedTuple):
    code: np.ndarray            # (instructions, INSTR) int32
    consts: np.ndarray          # uint64: the constants as register values
    result: int                 # the register holding the expression's value
    out_dtype: np.dtype
    divides: bool               # an integer // or %: a zero divisor is flagged in `errors`


class Launch(typing.NamedTuple):
    kernel: str
    grid: tuple
    block: tuple
    program: Program
    in_desc: np.ndarray         # (n, inputs, IN_FIELDS) int64
    out_desc: np.ndarray        # (n, OUT_FIELDS) int64
    ndim: int

    def arguments(self, inputs, out, errors):
        """The kernel's arguments in order, around the batches `inputs` (uint64 addresses),
        `out` and `errors`."""
        p = self.program
        return (p.code, np.int32(len(p.code)), p.consts, inputs, self.in_desc,
                np.int32(self.in_desc.shape[1]), out, self.out_desc, np.int32(self.ndim),
                np.int32(len(self.out_desc)), np.int32(p.result),
                np.int32(TYPE_CODES[p.out_dtype]), np.int32(p.out_dtype.itemsize), errors)


def compile(tree, prog):
    """The `Program` of the parsed expression `tree` with the types and constants of `prog`
    (`ArithmeticGenericOp`'s `_Program` for the batch's kinds of inputs)."""
    code, consts, free = [], [], list(range(REGS))
    divides = False

    def reg():
        if not free:
            raise ValueError(f"the expression needs more than {REGS} registers of "
                             "arithmetic.cu")
        return free.pop(0)

    def convert(r, src, dst):
        if src != dst:
            if src.kind == "f" and dst.kind != "f":
                raise ValueError(f"arithmetic.cu does not convert {src} to {dst}")
            code.append((_OP["convert"], TYPE_CODES[dst], r, r, TYPE_CODES[src], 0))
        return dst

    def emit(e):
        """(register, dtype) of the value of subexpression `e`."""
        nonlocal divides
        if e.kind == "input":
            r, dtype = reg(), np.dtype(prog.types[id(e)][1])
            code.append((_OP["load"], _code(dtype), r, e.index, 0, 0))
            return r, dtype
        if e.kind == "const":
            value = np.asarray(prog.consts[id(e)])
            r, dtype = reg(), value.dtype
            code.append((_OP["const"], _code(dtype), r, len(consts), 0, 0))
            consts.append(_bits(value))
            return r, dtype
        args = [emit(a) for a in e.args]
        t, dtype = prog.types[id(e)]
        dtype = np.dtype(dtype)
        regs = [r for r, _ in args]
        if kernels.compare_ufunc(e.name) is not None:
            op_type = _compare(e, prog, args, convert)
        elif e.name in ("lshift", "rshift"):
            work = np.dtype(kernels.shift_work(t)[0])
            for r, src in args:
                convert(r, convert(r, src, dtype), work)
            op_type = TYPE_CODES[work]
        else:
            for r, src in args:
                convert(r, src, dtype)
            op_type = _code(dtype)
            divides = divides or (e.name in ("div", "mod") and dtype.kind != "f")
        code.append((_OP[e.name], op_type, regs[0], *regs, *[0] * (3 - len(regs))))
        free.extend(regs[1:])
        free.sort()
        if e.name in ("lshift", "rshift"):
            convert(regs[0], TYPES[op_type], dtype)
        return regs[0], dtype

    result, _ = emit(tree)
    return Program(np.array(code, np.int32).reshape(-1, INSTR), np.array(consts, np.uint64),
                   result, np.dtype(prog.dtype), divides)


def _code(dtype):
    code = TYPE_CODES.get(np.dtype(dtype))
    if code is None:
        raise ValueError(f"arithmetic.cu has no type {np.dtype(dtype)}")
    return code


def _compare(e, prog, args, convert):
    """The type code comparison `e` computes in, its operands (`args`) converted to it: their
    common type, or for a uint64 against a signed integer the exact mixed comparison (the
    signed one converted to int64)."""
    ta, tb = (a.type if a.kind == "const" else prog.types[id(a)][0] for a in e.args)
    ct = kernels.compare_type(ta, tb)
    if ct is not None:
        work = np.dtype(_types.dtype_of(ct))
        for r, src in args:
            convert(r, src, work)
        return TYPE_CODES[work]
    for r, src in args:
        if src != np.uint64:
            convert(r, src, np.dtype(np.int64))
    return U64_I64 if args[0][1] == np.uint64 else I64_U64


def _bits(value):
    """A constant as its register value: integers sign- or zero-extended, floats' bits."""
    if value.dtype == np.float32:
        return int(value.view(np.uint32))
    if value.dtype == np.float64:
        return int(value.view(np.uint64))
    return int(value) & 0xFFFFFFFFFFFFFFFF


def launch(program, out_shapes, in_shapes, in_dtypes, out_offsets=None, in_offsets=None):
    """The `Launch` of `program` on a batch.

    out_shapes : (n, ndim) the output samples' shapes (the plan's)
    in_shapes : per input, (n, ndim_j) its samples' shapes (ndim_j <= ndim; each broadcasts
        to the output sample's shape, NumPy style)
    in_dtypes : per input, its dtype
    out_offsets, in_offsets : the samples' byte offsets in the output and in each input
        (None: the samples packed one after another)
    """
    out_shapes = np.asarray(out_shapes, np.int64).reshape(len(out_shapes), -1)
    n, ndim = out_shapes.shape
    if n > MAX_SAMPLES:
        raise ValueError(f"an arithmetic launch takes at most {MAX_SAMPLES} samples, not {n}")
    if ndim > DIMS:
        raise ValueError(f"arithmetic.cu takes samples of at most {DIMS} dimensions, not {ndim}")
    volumes = np.prod(out_shapes, axis=1, dtype=np.int64)
    out_desc = np.zeros((n, OUT_FIELDS), np.int64)
    out_desc[:, 0] = _offsets(out_offsets, volumes, program.out_dtype.itemsize)
    out_desc[:, 1] = volumes
    out_desc[:, 2:2 + ndim] = out_shapes
    in_desc = np.zeros((n, len(in_shapes), IN_FIELDS), np.int64)
    for j, (shapes, dtype) in enumerate(zip(in_shapes, in_dtypes, strict=True)):
        item = np.dtype(dtype).itemsize
        shapes = np.asarray(shapes, np.int64).reshape(n, -1)
        padded = np.ones((n, ndim), np.int64)
        if shapes.shape[1] > ndim:
            raise ValueError(f"input {j} has more dimensions than the output")
        padded[:, ndim - shapes.shape[1]:] = shapes
        bad = ((padded != out_shapes) & (padded != 1)).any(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"input {j} of sample {i}, of shape {tuple(shapes[i].tolist())}, "
                             f"does not broadcast to {tuple(out_shapes[i].tolist())}")
        strides = np.ones((n, ndim + 1), np.int64)
        strides[:, :-1] = np.cumprod(padded[:, ::-1], axis=1)[:, ::-1]
        strides = np.where(padded == 1, 0, strides[:, 1:] * item)
        flat = (padded == out_shapes).all(axis=1)
        scalar = (padded == 1).all(axis=1)
        in_desc[:, j, 0] = _offsets(None if in_offsets is None else in_offsets[j],
                                    np.prod(shapes, axis=1, dtype=np.int64), item)
        in_desc[:, j, 1] = np.where(flat, FLAT, np.where(scalar, SCALAR, STRIDED))
        in_desc[:, j, 2:2 + ndim] = np.where(flat[:, None], 0, strides)
        in_desc[flat, j, 2] = item
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return Launch(KERNEL, (blocks, max(n, 1), 1), (BLOCK, 1, 1), program, in_desc, out_desc,
                  ndim)


def _offsets(given, volumes, item):
    if given is not None:
        given = np.asarray(given, np.int64)
        if np.any(given % item):
            raise ValueError("sample offsets must be multiples of the element size")
        return given
    return np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64) * item
