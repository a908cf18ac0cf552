"""fn.cast and fn.cast_like: element type conversion with DALI's rounding and saturation.

Rules (measured on DALI 2.4):

- float -> integer rounds half away from zero and saturates (infinities too); NaN becomes 0,
  except for int32/int64 (their minimum) and uint64 (2**63), what x86 conversions produce;
- integer -> integer saturates;
- float -> bool is `round(x) != 0` (so 0.4 is False, 0.5 True, NaN True); integer -> bool is
  `x != 0`; bool -> anything is 0/1;
- conversions to a floating type round to nearest (overflow gives inf), like numpy.

The conversion is one call of the `cast` kernel (`_ext/kernels/cast.h`) on the whole batch:
one flat range when the samples lie back to back, cut into pieces for the thread pool.
"""

from __future__ import annotations

from dali import _operator, _registry, _types
from dali._ext.kernels import cast as cast_kernel
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.tensor import _cast_gpu, _views


def _cast_on_gpu(ws):
    """Both cast operators' `run_gpu`: one launch over the whole batch (device batches are
    packed)."""
    src, out = ws.input_storage(0), ws.outputs[0]
    launch = _cast_gpu.launch(src.nbytes // src.dtype.itemsize, src.dtype, out.dtype)
    ws.gpu.launch(_cast_gpu.__file__, launch.kernel, launch.grid, launch.block,
                  (src, out, launch.count))


@_registry.register
class Cast(_operator.Operator):
    schema = Schema(
        "cast", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Converts the data to `dtype`.\n\n"
            "Floating-point values become integers by rounding half away from zero and "
            "saturating at the target type's limits; integers saturate too.",
        args=[Arg("dtype", T.DATA_TYPE, REQUIRED, doc="Output data type.")])

    def setup(self):
        dtype = T(self.args["dtype"])
        if not _types.is_numeric(dtype):
            raise self.error(f"Invalid output type {dtype}: a numeric type or BOOL is needed.",
                             RuntimeError)
        self.dtype = _types.dtype_of(dtype)

    def infer(self, ws):
        return _views.same_shapes_plan(ws, self.dtype)

    def run_cpu(self, ws, plan):
        cast_kernel.cast_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0])

    def run_gpu(self, ws, plan):
        _cast_on_gpu(ws)


@_registry.register
class CastLike(_operator.Operator):
    schema = Schema(
        "cast_like", inputs=2, outputs=1, devices=("cpu", "gpu"),
        doc="Converts the first input to the type of the second (whose data is not used), "
            "with the rounding and saturation of `cast`.")

    def infer(self, ws):
        return _views.same_shapes_plan(ws, ws.input_dtype(1))

    def run_cpu(self, ws, plan):
        cast_kernel.cast_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0])

    def run_gpu(self, ws, plan):
        _cast_on_gpu(ws)
