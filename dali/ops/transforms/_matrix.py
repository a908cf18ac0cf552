"""Affine transform matrices of the `fn.transforms.*` operators, for a whole batch at once.

An n-D affine transform is an (n, n+1) float32 matrix `[A | t]` mapping `x -> A x + t`
(n = 1..6).  Each operator builds one homogeneous (n+1, n+1) float64 matrix per *part* - a
sample, or a frame of a sequence - as one (parts, n+1, n+1) array, without a Python loop over
the samples.  With an input transform `T`, the output is `M @ T` (the operator's transform
applied after the input's), or `T @ M` with `reverse_order`; `combine` multiplies its inputs the
same way.  The products are taken in float64 and stored as float32 by one kernel call per batch
(`_ext/kernels/transforms`, straight into the output).

The plan of a batch (output shapes and, when no argument is an input, the operator's matrices:
one for every sample, or one per frame of a sequence) is kept for the next batch whose inputs
and argument inputs have the same shapes and layouts: with constant arguments such a batch costs
the kernel call and little else.

Sequences: an input transform whose layout starts with "F" (shape (frames, n, n+1)) or an
argument input marked per frame (`fn.per_frame`: shape (frames, k)) makes the output a sequence
of transforms, (frames, n, n+1) per sample with layout "F**".  Every per-frame source of a
sample has either one frame or the sample's number of frames (the largest); a one-frame source
and the per-sample arguments apply to every frame.  Plain outputs have layout "**".
"""

from __future__ import annotations

import numpy as np

from dali import _operator, tensors
from dali._ext.kernels import transforms as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T

MAX_NDIM = 6


def schema(name, doc, args, inputs=(0, 1), input_names=("input",)):
    """The Schema of a transform operator: `doc`, `args` and `reverse_order`."""
    return Schema(
        name, inputs=inputs, outputs=1, devices=("cpu",), input_names=list(input_names),
        doc=doc + "\n\nThe output is an (ndim, ndim+1) float32 matrix per sample (per frame of a "
                  "sequence: (frames, ndim, ndim+1)), which `fn.coord_transform` and "
                  "`fn.warp_affine` accept.",
        args=[*args, Arg(
            "reverse_order", T.BOOL, False,
            doc="How the transform is combined with the input transform: False applies this "
                "operator's transform after the input's (`M @ T`), True before it (`T @ M`). "
                "Ignored without an input.")])


class Transform(_operator.Operator):
    """Base of the transform operators: inputs, frames, ndim and composition.

    A subclass names the arguments that can be given per frame (`frame_args`), infers the
    number of dimensions (`transform_ndim`) and builds its matrices (`matrices`).
    """

    frame_args: tuple[str, ...] = ()

    def transform_ndim(self, ws, in_ndim):
        """The number of dimensions of the transform (`in_ndim`: the input's, or None)."""
        raise NotImplementedError

    def matrices(self, ws, plan):
        """(plan.parts, ndim + 1, ndim + 1) float64 homogeneous matrices."""
        raise NotImplementedError

    def infer(self, ws):
        key = self.plan_key(ws)
        plan = self._last.get(key)
        if plan is None:
            plan = self._last.keep(key, self.new_plan(ws, constant=not ws.arg_inputs))
        return plan

    def setup(self):
        self._last = _operator.LastPlan()   # the last batch's plan
        # the constant values of the vector arguments, as values() reads them: (1, k) float64
        self._rows = {name: np.asarray(self.args[name], np.float64).reshape(1, -1)
                      for name in self.frame_args if self.args[name] is not None}

    def plan_key(self, ws):
        """What the plan depends on: the batch size and the shapes, layouts and types of the
        inputs and the shapes and layouts of the argument inputs."""
        key = [ws.batch_size]
        for tl in ws.inputs:
            st = tensors.storage_of(tl)
            key.append(_operator.shapes_key(st.shapes, tl.layout(), st.dtype))
        for name, tl in ws.arg_inputs.items():
            key.append(_operator.shapes_key(tensors.storage_of(tl).shapes, name, tl.layout()))
        return tuple(key)

    def new_plan(self, ws, constant):
        """The plan of a batch; with `constant` arguments it holds the operator's matrices
        (`fixed`, see `constant_matrices`), else None there."""
        in_ndim, sources = self.input_transforms(ws)
        for name in self.frame_args:
            frames = per_frame_counts(ws, name)
            if frames is not None:
                sources.append((f"tensor argument `{name}`", frames))
        ndim = self.transform_ndim(ws, in_ndim)
        if not 1 <= ndim <= MAX_NDIM:
            raise self.error(f"Unsupported number of dimensions {ndim}", RuntimeError)
        if in_ndim is not None and in_ndim != ndim:
            raise self.error(f"The input describes a {in_ndim}D transform but other arguments "
                             f"suggest a {ndim}D transform", RuntimeError)
        plan = self.output_plan(ws, ndim, self.frames(ws, sources))
        plan.sizes = {name: self.arg_size(ws, name) for name in ws.arg_inputs}
        plan.constants = {}             # values() of constant arguments, by (name, size)
        plan.fixed = self.constant_matrices(ws, plan) if constant else None
        return plan

    def constant_matrices(self, ws, plan):
        """The matrices of a batch when no argument is an input: (1, ndim + 1, ndim + 1), the
        matrix of every sample, or for a sequence one per part."""
        if plan.frames is not None:
            return self.matrices(ws, plan)
        return self.matrices(ws, _operator.Plan([], ndim=plan.ndim, frames=None, parts=1,
                                                sizes={}, constants={}))

    def run_cpu(self, ws, plan):
        m = plan.fixed if plan.fixed is not None else self.matrices(ws, plan)
        factors = [input_factor(ws, 0, plan), m] if len(ws.inputs) else [m]
        _kernel.compose_batch(ws.outputs[0], factors, plan.ndim, self.args["reverse_order"])

    # -- shared steps -------------------------------------------------------------------------
    def input_transforms(self, ws):
        """(ndim of the input transforms or None, [(what, frames per sample or None)])."""
        ndim, sources = None, []
        for k in range(len(ws.inputs)):
            what = "The input" if len(ws.inputs) == 1 else f"Input {k}"
            tl = ws.inputs[k]
            if tl.dtype != T.FLOAT:
                raise self.error(f"Unexpected input data type. Expected float, got: "
                                 f"{ws.input_dtype(k)}", RuntimeError)
            shapes = np.asarray(ws.input_storage(k).shapes)
            if not len(shapes):                  # an empty batch (a branch no sample takes)
                sources.append((what.lower(), None))
                continue
            seq = tl.layout().startswith("F") and shapes.shape[1] == 3
            mats = shapes[:, 1:] if seq else shapes
            if mats.shape[1] != 2 or (mats[:, 1] != mats[:, 0] + 1).any():
                raise self.error(f"{what}, if provided, is expected to be a 2D tensor with "
                                 "dimensions (ndim, ndim+1) representing an affine transform "
                                 f"(a sequence of them with a layout starting with \"F\"), got "
                                 f"shapes {shapes.tolist()[:4]}", RuntimeError)
            d = int(mats[0, 0])
            if (mats[:, 0] != d).any() or (ndim is not None and d != ndim):
                raise self.error("All input transforms are expected to have the same shape, "
                                 f"got {mats.tolist()[:4]}", RuntimeError)
            ndim = d
            sources.append((what.lower(), shapes[:, 0].astype(np.int64) if seq else None))
        return ndim, sources

    def frames(self, ws, sources):
        """Frames per sample (int64 array), or None when the output is not a sequence."""
        counts = [c for _, c in sources if c is not None]
        if not counts:
            return None
        frames = np.max(counts, axis=0)
        for what, c in sources:
            if c is None:
                continue
            bad = np.flatnonzero((c != 1) & (c != frames))
            if bad.size:
                i = int(bad[0])
                raise ws.sample_error(i, f"The {what} has {c[i]} frames but the sample has "
                                         f"{frames[i]}: give one frame or one per frame",
                                      RuntimeError)
        return frames

    def output_plan(self, ws, ndim, frames):
        n = ws.batch_size
        if frames is None:
            shapes = [(ndim, ndim + 1)] * n
            layout, parts = "**", n
        else:
            shapes = [(int(f), ndim, ndim + 1) for f in frames]
            layout, parts = "F**", int(frames.sum())
        return _operator.Plan([_operator.OutputDesc(shapes, np.dtype(np.float32), layout)],
                              ndim=ndim, frames=frames, parts=parts)

    def arg_size(self, ws, name):
        """The number of values of the vector argument `name` (the same in every sample)."""
        tl = ws.arg_inputs.get(name)
        if tl is None:
            return np.size(self.args[name])
        st = tensors.storage_of(tl)
        shapes = np.asarray(st.shapes)
        if tl.layout().startswith("F") and shapes.shape[1] >= 1:
            shapes = shapes[:, 1:]
        sizes = np.prod(shapes, axis=1, dtype=np.int64)
        if len(sizes) and (sizes != sizes[0]).any():
            raise self.error(f'Expected uniform shape for argument "{name}" but got shapes '
                             f"{np.asarray(st.shapes).tolist()[:4]}", RuntimeError)
        return int(sizes[0]) if len(sizes) else 0

    def values(self, ws, name, plan, size, repeat=True):
        """(plan.parts, size) float64 values of the argument `name` (read-only): a single
        value is repeated `size` times (when `repeat`), other counts than 1 and `size` are an
        error."""
        tl = ws.arg_inputs.get(name)
        k = self._rows[name].shape[1] if tl is None else plan.sizes[name]
        if k != size and (k != 1 or not repeat):
            raise self.error(f'Argument "{name}" expected shape {size} but got {k} values, '
                             "which can't be interpreted as the expected shape.", RuntimeError)
        if tl is None:
            rows = plan.constants.get((name, size))
            if rows is None:
                rows = plan.constants[name, size] = np.broadcast_to(self._rows[name],
                                                                    (plan.parts, size))
            return rows
        if per_frame_counts(ws, name) is None:
            rows = np.asarray(tensors.storage_of(tl).contiguous().flat(), np.float64).reshape(-1, k)
        else:
            rows = _frame_rows(ws, tl, name, plan.frames, k)
        if plan.frames is not None and len(rows) != plan.parts:
            rows = np.repeat(rows, plan.frames, axis=0)
        return rows if k == size else np.broadcast_to(rows, (plan.parts, size))

    def around_center(self, ws, plan, a):
        """Homogeneous matrices of `x -> a (x - center) + center` (`center`: the argument of
        that name, one value per dimension, default the origin)."""
        if not ws.arg_given("center"):
            return linear(a)
        c = self.values(ws, "center", plan, plan.ndim, repeat=False)
        return linear(a, c - np.einsum("pij,pj->pi", a, c))


def per_frame_counts(ws, name):
    """Frames per sample of the argument input `name` when it is given per frame, else None."""
    tl = ws.arg_inputs.get(name)
    if tl is None or not tl.layout().startswith("F"):
        return None
    if len(tl) != ws.batch_size:
        raise ws.op.error(f"argument input `{name}` has {len(tl)} samples but the batch has "
                          f"{ws.batch_size}")
    return np.asarray(tensors.storage_of(tl).shapes)[:, 0].astype(np.int64)


def _frame_rows(ws, tl, name, frames, k):
    """(parts, k) rows of a per-frame argument input, one-frame samples repeated."""
    st = tensors.storage_of(tl).contiguous()
    rows = np.asarray(st.flat(), np.float64).reshape(-1, k)
    return np.repeat(rows, _row_repeats(np.asarray(st.shapes)[:, 0], frames), axis=0)


def input_factor(ws, k, plan):
    """Input k's matrices, one per part: its storage (one matrix per sample), or for a sequence
    a float32 (plan.parts, ndim, ndim + 1) array (one-frame samples repeated)."""
    st = ws.input_storage(k)
    if plan.frames is None:
        return st
    d = plan.ndim
    mats = np.asarray(st.contiguous().flat()).reshape(-1, d, d + 1)
    if len(mats) != plan.parts:
        shapes = np.asarray(st.shapes)
        own = shapes[:, 0] if shapes.shape[1] == 3 else np.ones(len(shapes), np.int64)
        mats = np.repeat(mats, _row_repeats(own, plan.frames), axis=0)
    return mats


def _row_repeats(own, frames):
    """How many times each row of a batch with `own` frames per sample is repeated to give
    `frames` per sample (a one-frame sample's row `frames` times, other rows once)."""
    return np.repeat(np.where(own == 1, frames, 1), own)


def diagonal(values):
    """(parts, n, n) matrices with the rows of the (parts, n) `values` on their diagonals."""
    parts, n = values.shape
    a = np.zeros((parts, n, n))
    a.reshape(parts, n * n)[:, ::n + 1] = values
    return a


def radians(degrees):
    """Angles in radians, converted in float32 as DALI does (`deg * float(pi / 180)`: cos(90
    degrees) is then -4.37e-8, not 6e-17), as float64."""
    return (degrees.astype(np.float32) * np.float32(np.pi / 180)).astype(np.float64)


def linear(a, t=None):
    """Homogeneous matrices of `x -> a x + t` ((parts, n, n) or (1, n, n), and (parts, n)
    arrays)."""
    n = a.shape[1]
    parts = a.shape[0] if t is None else max(a.shape[0], t.shape[0])
    out = np.zeros((parts, n + 1, n + 1))
    out[:, :n, :n] = a
    if t is not None:
        out[:, :n, n] = t
    out[:, n, n] = 1.0
    return out
