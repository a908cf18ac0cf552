"""The input layout of image operators, with DALI's rules for an input without one and DALI's
messages: `input_layout` (geometric operators: crop, flip, the warps) chooses by the number of
dimensions; `image_layout` (colour operators, displacement) takes the first allowed layout of
that rank."""

from __future__ import annotations


def input_layout(op, tl, allowed, by_ndim) -> str:
    """The layout of input `tl`, one of `allowed`; an empty one is `by_ndim[ndim]`."""
    layout = tl.layout()
    if not layout:
        layout = by_ndim.get(tl.ndim())
        if layout is None:
            raise op.error(f"The number of dimensions {tl.ndim()} does not match any of the "
                           f"allowed layouts for input 0. Valid layouts are: "
                           f"{', '.join(allowed)}.")
    elif layout not in allowed:
        raise op.error(f'The layout "{layout}" does not match any of the allowed layouts for '
                       f"input 0. Valid layouts are: {', '.join(allowed)}.")
    return layout


def image_layout(op, tl, allowed) -> str:
    """The input's layout, or for an input without one the first allowed layout of its rank
    (DALI's rule); raises for anything else."""
    layout = tl.layout()
    ndim = tl.ndim()
    valid = "\n".join(allowed)
    if layout:
        if layout not in allowed:
            raise op.error(f'The layout "{layout}" does not match any of the allowed layouts '
                           f"for input 0. Valid layouts are:\n{valid}")
        return layout
    for cand in allowed:
        if len(cand) == ndim:
            return cand
    raise op.error(f"The number of dimensions {ndim} does not match any of the allowed "
                   f"layouts for input 0. Valid layouts are:\n{valid}")
