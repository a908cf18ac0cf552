"""Output shapes in the form the executor allocates fastest.

`infer` may give an output's shapes as an (n, ndim) array, but the executor then converts and
checks it with NumPy calls (several microseconds, as much as a small batch's whole run); a
list that repeats one tuple is taken as it is, and a list of tuples in one typed loop.
"""

from __future__ import annotations


def shape_list(shapes):
    """The (n, ndim) integer array `shapes` as a list of tuples (one tuple repeated when the
    samples share a shape)."""
    n = len(shapes)
    if n and (shapes == shapes[0]).all():
        return [tuple(shapes[0].tolist())] * n
    return [tuple(s) for s in shapes.tolist()]
