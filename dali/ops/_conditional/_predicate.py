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


def picked_info(info, idx):
    """The source info of the samples `idx` of a batch whose source info is `info` (a list or
    None), as `_ext/kernels/conditional.pyx` picks it for the host batches."""
    return None if info is None else [info[i] for i in idx.tolist()]


def merged_meta(mask, t_ids, f_ids, t_info, f_info):
    """(ids, source info) of a merged batch: sample i is the next one of the true branch where
    `mask[i]`, else of the false one (as `conditional.merge` makes them on the host)."""
    ids = np.empty(len(mask), np.int64)
    ids[mask], ids[~mask] = t_ids, f_ids
    if t_info is None and f_info is None:
        return ids, None
    info = [""] * len(mask)
    for part, pos in ((t_info, np.flatnonzero(mask)), (f_info, np.flatnonzero(~mask))):
        if part is not None:
            for p, v in zip(pos.tolist(), part, strict=False):
                info[p] = v
    return ids, info
