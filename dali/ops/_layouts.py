"""The input layout of the geometric operators (crop, flip, the warps), with DALI's rule for an
input without one (chosen by its number of dimensions) and DALI's messages."""

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
