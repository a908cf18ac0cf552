"""Per-sample choice between augmentations, on top of conditional split/merge.

`if_else` is the `if` statement of `enable_conditionals=True` pipelines called directly (the
library's own code is not rewritten by `dali._autograph`): every DataNode the branches use is
split by the predicate, each branch's operators run on their samples only, and the result is
merged back in the original sample order.  `select` builds a balanced binary tree of such
`if`s over the operation index (`idx <= mid`), so each sample passes `ceil(log2(len(ops)))`
split/merge levels, the same tree DALI builds.
"""

from __future__ import annotations

from dali._autograph import conditional, runtime
from dali._graph import data_node


def if_else(predicate, on_true, on_false):
    """`on_true()` for the samples where `predicate` holds, `on_false()` for the others.

    Parameters
    ----------
    predicate : DataNode or bool
        A batch of 0-d booleans (or a Python bool, which runs one branch as plain Python).
    on_true, on_false : callable
        Functions of no arguments returning a DataNode (or a structure of them).
    """
    if isinstance(predicate, data_node.DataNode):
        try:
            conditional.current_stack()
        except RuntimeError:
            bool(predicate)  # DALI's TypeError: the pipeline lacks enable_conditionals=True
    box = [None]

    def body():
        box[0] = on_true()

    def orelse():
        box[0] = on_false()

    runtime.if_stmt(predicate, body, orelse, lambda: (box[0],),
                    lambda values: box.__setitem__(0, values[0]), ("result",), 1)
    return box[0]


def select(ops, selected_op_idx, *op_args, **op_kwargs):
    """Applies the operation from `ops` selected per sample by `selected_op_idx`, as if by
    calling `ops[selected_op_idx](*op_args, **op_kwargs)`.

    Parameters
    ----------
    ops : list of callable
        The operations (usually `Augmentation`s) to choose from.
    selected_op_idx : DataNode
        A batch of 0-d integers from `[0, len(ops) - 1]`.
    op_args, op_kwargs
        Arguments of the call; DataNodes among them are split with the batch.
    """
    if not ops:
        raise ValueError("The `ops` list passed to `select` cannot be empty.")

    def pick(lo, hi):
        if lo == hi:
            return ops[lo](*op_args, **op_kwargs)
        mid = (lo + hi) // 2
        return if_else(selected_op_idx <= mid, lambda: pick(lo, mid), lambda: pick(mid + 1, hi))

    return pick(0, len(ops) - 1)
