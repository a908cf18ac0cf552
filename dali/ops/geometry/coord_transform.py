"""fn.coord_transform: `out = M @ in + T` applied to every point (the last axis) of a tensor.

The matrix comes from `M` and `T`, or from the block matrix `MT = [M | T]`: constants, or
per-sample argument inputs (a 2-D matrix or a scalar per sample, the same shape in every
sample; `T` a 1-D vector or a scalar), or per-frame ones (`fn.per_frame`) for sequences.  A
scalar M is that value times the identity; a scalar T is repeated over M's rows; a flat
constant M or MT is cut into rows of the input's coordinates (plus one for MT).  The output has
M's number of rows as its last axis, the input's layout, and the type `dtype`: float, or the
input's own type (rounded half away from zero and saturated).

Every part (sample, or frame of a sequence given per-frame matrices) gets one
(rows, cols + 1) float32 matrix; the points of the whole batch go through the kernel
`_ext/kernels/coord_transform.pyx` in one nogil call.  A per-frame argument on an input that is
not a sequence repeats the input once per frame, as DALI does.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types, tensors
from dali._ext.kernels import coord_transform as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.geometry import _coords_gpu

_F32 = np.dtype(np.float32)


@_registry.register
class CoordTransform(_operator.Operator):
    schema = Schema(
        "coord_transform", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Applies a linear transformation to points or vectors: `out = M * in + T`, where "
            "`M` is an m x n matrix and `T` a translation vector of m components. The input's "
            "last axis holds the n components of each vector (n = input.shape[-1]); the "
            "output's holds m. Affine transforms of point clouds, projections and linear "
            "colour operations are all of this form. Sequences (layout starting with \"F\") "
            "may get one matrix per frame.",
        args=[
            Arg("M", T._FLOAT_VEC, None, tensor=True,
                doc="The matrix (row-major, rows of n values), identity when not given. A "
                    "scalar is a square matrix with that value on the diagonal. May be given "
                    "per frame."),
            Arg("T", T._FLOAT_VEC, None, tensor=True,
                doc="The translation vector, one value per row of `M` (a scalar is repeated); "
                    "none by default. May be given per frame."),
            Arg("MT", T._FLOAT_VEC, None, tensor=True,
                doc="The block matrix `[M T]` (rows of n + 1 values); a scalar is that value "
                    "on the diagonal of M and no translation. Exclusive with `M` and `T`. May "
                    "be given per frame."),
            Arg("dtype", T.DATA_TYPE, T.FLOAT,
                doc="Output type: FLOAT, or the input's type (values rounded to the nearest "
                    "integer and clamped to the type's range)."),
        ])

    def setup(self):
        self._constant = None       # (cols, matrix) of constant arguments, for the last cols
        given = self.spec.given
        if "MT" in given and ("M" in given or "T" in given):
            raise self.error("The combined ``MT`` argument cannot be used together with "
                             "separate ``M``, ``T`` arguments.", RuntimeError)

    def infer(self, ws):
        tl = ws.inputs[0]
        dtype = ws.input_dtype(0)
        if dtype not in _kernel.TYPES:
            raise self.error(f"Unsupported input type: {_type_name(dtype)}", RuntimeError)
        out_dtype = np.dtype(_types.to_numpy_type(self.args["dtype"]))
        if out_dtype not in (dtype, _F32):
            raise self.error(f"CoordTransform output type must be the same as input type, "
                             f"which is {_type_name(dtype)}, or `float`. Got: "
                             f"{_type_name(out_dtype)}", RuntimeError)
        shapes = np.asarray(ws.input_storage(0).shapes)
        if shapes.shape[1] < 2:
            raise self.error("CoordTransform expects an input with at least 2 dimensions.",
                             RuntimeError)
        layout = tl.layout()
        cols = int(shapes[0, -1]) if len(shapes) else 0
        if (shapes[:, -1] != cols).any():
            raise self.error(f"all samples must have the same number of components (the last "
                             f"axis), got {np.unique(shapes[:, -1]).tolist()}", RuntimeError)
        names = ("MT",) if "MT" in ws.spec.given else ("M", "T")
        arg_frames = [_frame_counts(ws, n) for n in names]
        arg_frames = [f for f in arg_frames if f is not None]
        frames, repeat = None, None
        if arg_frames:
            arg_frames = np.max(arg_frames, axis=0)
            if layout.startswith("F"):
                frames = shapes[:, 0].astype(np.int64)
            else:                   # the input is repeated once per frame
                frames = repeat = arg_frames
                shapes = np.hstack([frames[:, None], shapes])
                layout = "F" + layout if layout else ""
        if any(ws.is_arg_input(n) for n in names):
            parts = ws.batch_size if frames is None else int(frames.sum())
            mats = self.matrices(ws, names, cols, frames, parts)
        else:                       # one matrix for every sample, kept for the next batch
            if self._constant is None or self._constant[0] != cols:
                self._constant = cols, self.matrices(ws, names, cols, None, 1)
            mats = self._constant[1]
        out_shapes = shapes.copy()
        out_shapes[:, -1] = mats.shape[1]
        return _operator.Plan([_operator.OutputDesc(out_shapes, out_dtype, layout)],
                              mats=mats, frames=frames, repeat=repeat, cols=cols,
                              points=np.prod(shapes[:, :-1], axis=1, dtype=np.int64))

    def run_cpu(self, ws, plan):
        src = ws.input_storage(0).contiguous().flat().reshape(-1, plan.cols)
        if plan.repeat is not None:
            src = src[_repeated_samples(plan.points // plan.repeat, plan.repeat)]
        dst = ws.outputs[0].flat().reshape(len(src), -1)
        points = plan.points
        if plan.frames is not None:
            points = np.repeat(plan.points // np.maximum(plan.frames, 1), plan.frames)
        _kernel.transform_batch(ws.thread_pool, np.ascontiguousarray(src), dst, plan.mats,
                                points)

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        launch = _coords_gpu.coord_transform(plan.mats, plan.points, plan.cols, plan.frames,
                                             plan.repeat, src.dtype, out.dtype, src.offsets,
                                             out.offsets)
        if launch is not None:
            ws.gpu.launch(_coords_gpu.__file__, launch.kernel, launch.grid, launch.block,
                          (src, out, launch.parts, launch.table, launch.rows, launch.cols))

    def matrices(self, ws, names, cols, frames, parts):
        """(parts, rows, cols + 1) float32 `[M | T]` of every part."""
        if names == ("MT",):
            mt, shape = self.values(ws, "MT", frames, parts, 2)
            if mt.shape[1] == 1:
                return _block(mt[:, 0, None, None] * np.eye(cols), np.zeros((parts, cols)))
            width = shape[1] if len(shape) == 2 else cols + 1
            if width != cols + 1 or mt.shape[1] % width:
                raise self.error(f"Cannot form a matrix with {mt.shape[1]} elements and "
                                 f"{cols + 1}columns", RuntimeError)
            mt = mt.reshape(parts, -1, cols + 1)
            return _block(mt[:, :, :cols], mt[:, :, cols])
        if "M" in ws.spec.given:
            m, shape = self.values(ws, "M", frames, parts, 2)
            if m.shape[1] == 1:
                m = m[:, 0, None, None] * np.eye(cols)
            elif (len(shape) == 2 and shape[1] != cols) or m.shape[1] % cols:
                raise self.error(f"Cannot form a matrix with {m.shape[1]} elements and "
                                 f"{cols}columns", RuntimeError)
            else:
                m = m.reshape(parts, -1, cols)
        else:
            m = np.broadcast_to(np.eye(cols), (parts, cols, cols))
        rows = m.shape[1]
        if "T" not in ws.spec.given:
            return _block(m, np.zeros((parts, rows)))
        t, _ = self.values(ws, "T", frames, parts, 1)
        if t.shape[1] not in (1, rows):
            raise self.error(f'Argument "T" expects either a single value or a list of {rows} '
                             f"elements. {t.shape[1]} given.", RuntimeError)
        return _block(m, np.broadcast_to(t, (parts, rows)))

    def values(self, ws, name, frames, parts, ndim):
        """((parts, k) float64 values of argument `name`, the shape of one sample's (or
        frame's) value); argument inputs hold a scalar or an `ndim`-D value per sample."""
        tl = ws.arg_inputs.get(name)
        if tl is None:
            v = np.asarray(self.args[name], np.float64).reshape(1, -1)
            return np.broadcast_to(v, (parts, v.shape[1])), v.shape[1:]
        st = tensors.storage_of(tl)
        shapes = np.asarray(st.shapes)
        per_frame = tl.layout().startswith("F")
        inner = shapes[:, 1:] if per_frame else shapes
        if len(inner) and (inner != inner[0]).any():
            raise self.error(f"The argument `{name}` must have the same shape in every sample, "
                             f"got {shapes.tolist()[:4]}", RuntimeError)
        shape = tuple(int(s) for s in inner[0]) if len(inner) else ()
        if len(shape) not in (0, ndim):
            what = "2D matrices" if ndim == 2 else "1D tensors"
            raise self.error(f"The argument `{name}` must be a list of {what} of the same "
                             f"size or a list of scalars, got shape {shape}", RuntimeError)
        k = int(np.prod(shape, dtype=np.int64))
        rows = np.asarray(st.contiguous().flat(), np.float64).reshape(-1, k)
        if frames is not None:
            own = shapes[:, 0] if per_frame else np.ones(len(shapes), np.int64)
            bad = np.flatnonzero((own != 1) & (own != frames))
            if bad.size:
                i = int(bad[0])
                raise ws.sample_error(i, f"the argument `{name}` has {own[i]} frames but the "
                                         f"sample has {frames[i]}", RuntimeError)
            rows = np.repeat(rows, np.repeat(np.where(own == 1, frames, 1), own), axis=0)
        return rows, shape


def _frame_counts(ws, name):
    """Frames per sample of argument input `name` when it is given per frame, else None."""
    tl = ws.arg_inputs.get(name)
    if tl is None or not tl.layout().startswith("F"):
        return None
    return np.asarray(tensors.storage_of(tl).shapes)[:, 0].astype(np.int64)


def _repeated_samples(points, times):
    """Row indices that repeat every sample's block of `points[i]` rows `times[i]` times."""
    starts = np.cumsum(points) - points
    return np.concatenate([np.tile(np.arange(s, s + p), t)
                           for s, p, t in zip(starts, points, times, strict=True)]
                          or [np.zeros(0, np.int64)])


def _block(m, t):
    """(parts, rows, cols + 1) float32 `[M | T]`."""
    return np.concatenate([m, t[:, :, None]], axis=2).astype(np.float32)


def _type_name(dtype):
    return _types.type_name(_types.dali_type_of(dtype))
