"""What fn.cat and fn.stack share: checking the inputs, the output shapes and layout, and the
row description the `join` kernel copies by.

Both see every input sample as `outer` rows (the axes before the join axis) of `inner` bytes
(the join axis and the axes after it); stacking inserts an axis of extent 1 at `axis` in every
input.  The shape computation runs on the (num_samples, ndim) shape arrays of all inputs at
once, memoized on them (a repeated batch shape is usually the same shape array).
"""

from __future__ import annotations

import numpy as np

from dali import _operator
from dali._ext.kernels import join as _kernel
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali.ops.tensor import _cat_gpu


def args(what):
    """The schema arguments of cat (`what="cat"`) or stack."""
    if what == "cat":
        name_doc = ("Name of the axis along which the inputs are concatenated, looked up in the "
                    "layout of the first input. Excludes `axis`.")
    else:
        name_doc = ("Name of the new axis, inserted into the output layout at `axis` (the "
                    "inputs must have a layout unless they are scalars). Without it the output "
                    "has no layout.")
    return [Arg("axis", T.INT32, 0,
                doc="Index of the axis along which the inputs are joined; negative values count "
                    "from the back" + (" (-1 is after the last axis)." if what == "stack"
                                       else ".")),
            Arg("axis_name", T.STRING, None, doc=name_doc)]


def check_args(op, stack):
    """Argument checks done once, at build."""
    name = op.args["axis_name"]
    if stack:
        if name is not None and len(name) != 1:
            raise op.error(f"``axis_name`` must be a single character; got {name}",
                           RuntimeError)
    elif name is not None and "axis" in op.spec.given:
        raise op.error("Arguments ``axis`` and ``axis_name`` cannot be used together.",
                       RuntimeError)


class JoinMemo:
    """One-entry memo of the per-batch shape computation, keyed by every input's shapes."""

    __slots__ = ("_entry",)

    def __init__(self):
        self._entry = None

    def get(self, shapes, extra):
        entry = self._entry
        if entry is None or entry[2] != extra or len(entry[0]) != len(shapes):
            return None
        if all(a is b for a, b in zip(entry[0], shapes, strict=True)):
            return entry[3]
        if entry[1] == [(s.shape, s.tobytes()) for s in shapes]:
            return entry[3]
        return None

    def put(self, shapes, extra, value):
        self._entry = (list(shapes), [(s.shape, s.tobytes()) for s in shapes], extra, value)
        return value


def plan(op, ws, memo, stack):
    """The Plan of fn.cat (`stack=False`) or fn.stack on this batch's inputs."""
    storages = [ws.input_storage(q) for q in range(len(ws.inputs))]
    storages = [s if s.is_contiguous else s.contiguous() for s in storages]   # device: packed
    first = storages[0]
    dtype, ndim = first.dtype, first.ndim
    for s in storages[1:]:
        if s.dtype != dtype or s.ndim != ndim:
            raise op.error("All inputs must have the same type and number of dimensions.",
                           RuntimeError)
    layout = ws.inputs[0].layout()
    shapes = [s.shapes for s in storages]
    extra = (dtype.itemsize, ndim, layout)
    found = memo.get(shapes, extra)
    if found is None:
        found = memo.put(shapes, extra, _shapes(op, shapes, dtype.itemsize, ndim, layout, stack))
    out_shapes, out_layout, outer, inner = found
    return _operator.Plan([_operator.OutputDesc(out_shapes, dtype, out_layout, len(out_layout)
                                                or out_shapes.shape[1])],
                          storages=storages, outer=outer, inner=inner)


def run(ws, plan):
    _kernel.join_batch(ws.thread_pool, plan.storages, ws.outputs[0], plan.outer, plan.inner)


def run_gpu(ws, plan):
    """One launch of `cat.cu` per input, each copying its blocks into the output rows."""
    out = ws.outputs[0]
    for launch in _cat_gpu.for_join(plan, [s.offsets for s in plan.storages], out.offsets):
        ws.gpu.launch(_cat_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (plan.storages[launch.input], out, launch.samples))


def _axis(op, ndim, layout, stack):
    name = op.args["axis_name"]
    axis = op.args["axis"]
    if name is not None and not stack:
        axis = layout.find(name)
        if axis < 0:
            raise op.error(f"``axis_name`` specifies an undefined axis '{name}' for layout "
                           f'"{layout}"', RuntimeError)
        return axis
    hi = ndim if stack else ndim - 1
    if not -ndim <= axis <= hi:
        raise op.error(f"Invalid axis argument, {axis} for {ndim}-D tensors. Accepted range is "
                       f"[{-ndim}, {hi}], with negative indices being counted from the back.",
                       RuntimeError)
    return axis + hi + 1 if axis < 0 else axis


def _shapes(op, shapes, itemsize, ndim, layout, stack):
    axis = _axis(op, ndim, layout, stack)
    all_shapes = np.stack(shapes)                       # (inputs, samples, ndim)
    first = all_shapes[0]
    outer = np.prod(first[:, :axis], axis=1, dtype=np.int64)
    inner = np.prod(all_shapes[:, :, axis:], axis=2, dtype=np.int64).T * itemsize
    if stack:
        bad = np.flatnonzero((all_shapes != first).any(axis=(0, 2)))
        if bad.size:
            i = int(bad[0])
            raise op.error(
                "Tensor stacking requires that all tensors being stacked are of equal shape. "
                f"Sample {i}: " + ", ".join(str(tuple(s[i].tolist())) for s in all_shapes),
                RuntimeError)
        out = np.insert(first, axis, len(shapes), axis=1)
        name = op.args["axis_name"]
        if name is None:
            out_layout = ""
        elif layout or ndim == 0:
            out_layout = layout[:axis] + name + layout[axis:]
        else:
            raise op.error("Specifying the new axis name with ``axis_name`` with non-scalar "
                           "input requires a non-empty input layout.", RuntimeError)
    else:
        others = np.delete(all_shapes, axis, axis=2)
        if (others != others[0]).any():
            raise op.error("Concatenated tensors can differ in size only in the concatenation "
                           f"axis ({axis}).", RuntimeError)
        out = first.copy()
        out[:, axis] = all_shapes[:, :, axis].sum(axis=0)
        out_layout = layout
    out.setflags(write=False)
    return out, out_layout, outer, np.ascontiguousarray(inner)
