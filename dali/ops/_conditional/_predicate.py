"""What the conditional operators share: the per-sample predicate of split and merge, and the
explanation DALI gives when a condition or a logical operand is not a scalar."""

from __future__ import annotations

import numpy as np

from dali import tensors

SCALAR_ONLY = (
    "This input restriction allows the logical expressions to always return scalar boolean "
    "outputs and to be used in unambiguous way in DALI conditionals (`if` statements). You can "
    "set the `dtype` parameter of some operators to `dali.types.BOOL` or use comparison "
    "operators which always return booleans.\n"
    "If you need to process inputs of higher dimensionality, different type, or device "
    "placement, you may use bitwise arithmetic operators `&`, `|` or comparison operator "
    "(`== 0`) to emulate logical `and`, `or` and `not` expressions.  Those operations performed "
    "on boolean inputs are equivalent to logical expressions. Keep in mind that, in contrast to "
    "using logical operators, all subexpressions of elementwise arithmetic operators are always "
    "evaluated.")


def predicate_mask(ws, expected=None, name="predicate"):
    """The per-sample truth values of a condition (0-d samples of bool or any number);
    `expected` is the number of samples it must have (default: the batch size)."""
    tl = ws.arg_inputs.get(name)
    if tl is None:
        raise ws.op.error("the predicate must be a per-sample (DataNode) argument")
    if tl.ndim() != 0:
        raise RuntimeError(
            "Conditions inside `if` statements are restricted to scalar (0-d tensors) inputs, "
            f"that are placed on CPU. Got a {tl.ndim()}-d input as a condition of the `if` "
            "statement.\n" + SCALAR_ONLY)
    expected = ws.batch_size if expected is None else expected
    if len(tl) != expected:
        raise ws.op.error(f"the predicate has {len(tl)} samples but {expected} were expected")
    st = tensors.storage_of(tl)
    dense = st.dense()
    if dense is not None:
        return dense != 0
    return np.array([bool(s) for s in st.samples()], dtype=bool)
