"""What the reductions share: their arguments, the reduced axes, the output shapes, layout and
type, and the call of the one nogil `reduce` kernel.

Rules (measured on DALI 2.4):

- inputs: any integer type or float32 (not bool, float16, double);
- axes: `axes` (negative ones count from the back) or `axis_names` (looked up in the layout),
  by default all; `keep_dims` leaves reduced axes of extent 1 in place, otherwise they are
  removed, from the layout too;
- output types: min/max keep the input type; sum widens integers to int64/uint64 (float stays
  float) and `dtype` may instead be the input type or float; mean and rms give float, or the
  input type when `dtype` says so; mean_square, variance and std_dev give float;
- integer outputs are accumulated in the output type (they wrap), mean and rms truncate;
- an empty reduction gives the type's largest value (min), lowest finite value (max), 0 (sum)
  and NaN (mean and the others with float output);
- NaN never replaces the running minimum or maximum.

On the GPU one launch of `reductions.cu` computes what the CPU kernel computes, bit for bit.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _types
from dali._ext.kernels import reduce as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.reductions import _reductions_gpu

_INPUT_TYPES = frozenset(_kernel.TYPES)
_F32 = np.dtype(np.float32)


def schema(op, doc, *, class_name=None, dtype=False, centred=False):
    """The Schema of `fn.reductions.<op>`."""
    args = [Arg("axes", T._INT32_VEC, None,
                doc="Axis or axes along which the reduction is performed, in [-ndim, ndim-1] "
                    "(negative values count from the back). Without `axes` and `axis_names` "
                    "all elements are reduced."),
            Arg("axis_names", T.TENSOR_LAYOUT, None,
                doc="Names of the axes along which the reduction is performed, looked up in "
                    "the input layout (excludes `axes`)."),
            Arg("keep_dims", T.BOOL, False,
                doc="Keep the reduced axes, with extent 1 (the layout is kept too).")]
    if dtype:
        allowed = {"sum": "the input type or FLOAT instead of the default (INT64 / UINT64 for "
                          "integers, FLOAT for float)",
                   "mean_square": "FLOAT only"}.get(op, "the input type or FLOAT (the default)")
        args.append(Arg("dtype", T.DATA_TYPE, None, doc=f"Output type: {allowed}."))
    if centred:
        args.append(Arg("ddof", T.INT32, 0,
                        doc="Delta degrees of freedom: the divisor is N - ddof."))
    return Schema(f"reductions.{op}", inputs=2 if centred else 1, outputs=1,
                  devices=("cpu", "gpu"), doc=doc, class_name=class_name, args=args,
                  input_names=["data", "mean"] if centred else ["data"])


class Reduction(_operator.Operator):
    """The reductions' common implementation; a subclass gives `schema` and `op` (the
    kernel's operation name)."""

    op = ""

    def setup(self):
        if self.args["axes"] is not None and self.args["axis_names"] is not None:
            raise self.error("Arguments `axes` and `axis_names` are mutually exclusive",
                             RuntimeError)
        dtype = self.args.get("dtype")
        self.dtype = None if dtype is None else _types.dtype_of(T(dtype))
        # (input shape array, (ndim, layout, type), (OutputDesc, reduced flags)) of the last
        # batch: a repeated batch shape is usually the same (read-only) shape array
        self._memo = None

    def _out_type(self, src):
        op = self.op
        if op in ("min", "max"):
            return src
        if op == "sum":
            default = (src if src.kind == "f" else
                       np.dtype(np.int64 if src.kind == "i" else np.uint64))
            allowed = (src, default, _F32)
        elif op == "mean_square":
            default, allowed = _F32, (_F32,)
        elif op in ("mean", "rms"):
            default, allowed = _F32, (src, _F32)
        else:
            return _F32
        if self.dtype is None:
            return default
        if self.dtype not in allowed:
            raise self.error(f"Unsupported types: {_name(src)}, {_name(self.dtype)}",
                             RuntimeError)
        return self.dtype

    def _axes(self, ndim, layout):
        names = self.args["axis_names"]
        axes = self.args["axes"]
        if names is not None:
            out = []
            for c in names:
                if c not in layout:
                    raise self.error(f"Axis '{c}' is not present in the input layout",
                                     RuntimeError)
                out.append(layout.index(c))
            return out
        if axes is None:
            return list(range(ndim))
        out = []
        for a in axes:
            if not -ndim <= a < ndim:
                raise self.error(f"Axis index out of range: {a} not in range "
                                 f"[{-ndim},{ndim - 1}]", IndexError)
            a = a + ndim if a < 0 else a
            if a in out:
                raise self.error(f"Duplicate axis index {a}", ValueError)
            out.append(a)
        return out

    def infer(self, ws):
        storage = ws.input_storage(0)
        src = storage.dtype
        if src not in _INPUT_TYPES:
            raise self.error(f"Unsupported input type: {_name(src)}", RuntimeError)
        layout = ws.inputs[0].layout() or ""
        key = (storage.ndim, layout, src)
        memo = self._memo
        if memo is not None and memo[0] is storage.shapes and memo[1] == key:
            desc, reduced = memo[2]
        else:
            desc, reduced = self._output(storage, layout)
            self._memo = (storage.shapes, key, (desc, reduced))
        mean = None
        if len(ws.inputs) > 1:
            mean = ws.input_storage(1)
            if self.spec.device == "cpu":
                mean = mean.contiguous()
            if mean.dtype != _F32:
                raise self.error(f"The mean must be of type float, not {_name(mean.dtype)}",
                                 RuntimeError)
        return _operator.Plan([desc], reduced=reduced, mean=mean)

    def _output(self, storage, layout):
        """The OutputDesc and the reduced-axis flags for input `storage`."""
        ndim = storage.ndim
        reduced = np.zeros(ndim, np.bool_)
        reduced[self._axes(ndim, layout)] = True
        if self.args["keep_dims"]:
            shapes = np.where(reduced, 1, storage.shapes)
            out_layout = layout
        else:
            shapes = storage.shapes[:, ~reduced]
            out_layout = "".join(c for c, r in zip(layout, reduced) if not r)  # noqa: B905
        shapes = np.ascontiguousarray(shapes, np.int64)
        shapes.setflags(write=False)
        return (_operator.OutputDesc(shapes, self._out_type(storage.dtype), out_layout,
                                     shapes.shape[1]), reduced)

    def run_cpu(self, ws, plan):
        _kernel.reduce_batch(ws.thread_pool, ws.input_storage(0).contiguous(), ws.outputs[0],
                             self.op, plan.reduced, plan.mean, self.args.get("ddof", 0))


    def run_gpu(self, ws, plan):
        """One launch of `reductions.cu` for the batch (`_reductions_gpu`)."""
        src, out, mean = ws.input_storage(0), ws.outputs[0], plan.mean
        if ws.batch_size == 0:
            return
        launch = _reductions_gpu.launch(
            self.op, plan.reduced, src.shapes, src.dtype, out.dtype,
            None if mean is None else mean.shapes, src.offsets, out.offsets,
            None if mean is None else mean.offsets, self.args.get("ddof", 0))
        ws.gpu.launch(_reductions_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      launch.arguments(src, out, np.uint64(0) if mean is None else mean))


def _name(dtype):
    return _types.type_name(_types.dali_type_of(dtype))
