"""fn.preemphasis_filter: y[t] = x[t] - coeff * x[t-1] over each sample's flat elements, with a
per-sample coefficient.

x[-1] is the border value: 0 ("zero"), x[0] ("clamp") or x[1] ("reflect"; 0 for a sample of
one element).  As in DALI the arithmetic is float (double for double input) and the result is
converted to `dtype` with rounding half away from zero and saturation.  Any numeric input but
bool and float16; any numeric output but those two.  The batch is one call of the
`preemphasis` kernel.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import preemphasis as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _gpu_program
from dali.ops.signal import _preemphasis_filter_gpu


@_registry.register
class PreemphasisFilter(_operator.Operator):
    schema = Schema(
        "preemphasis_filter", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Applies a preemphasis filter, `Y[t] = X[t] - coeff * X[t-1]`, to the input data "
            "(its elements in order, whatever its shape).\n\n"
            "`X[-1]` depends on `border`: 0 (\"zero\"), `X[0]` (\"clamp\") or `X[1]` "
            "(\"reflect\").",
        args=[Arg("border", T.STRING, "clamp",
                  doc='Border value policy: "zero", "clamp" or "reflect".'),
              Arg("dtype", T.DATA_TYPE, T.FLOAT, doc="Data type of the output."),
              Arg("preemph_coeff", T.FLOAT, 0.97, tensor=True,
                  doc="Preemphasis coefficient `coeff`.")])

    def setup(self):
        border = self.args["border"]
        if border not in _kernel.BORDERS:
            raise self.error(f'``border`` mode "{border}" is not supported (expected "zero", '
                             '"clamp" or "reflect").')
        dtype = T(self.args["dtype"])
        if dtype in (T.BOOL, T.FLOAT16) or not _types.is_numeric(dtype):
            raise self.error(f"Unsupported output type: {_types.type_name(dtype)} (`dtype`).",
                             TypeError)
        self.dtype = _types.dtype_of(dtype)

    def infer(self, ws):
        in_dtype = ws.input_dtype(0)
        if not _kernel.supports(in_dtype, self.dtype):
            raise self.error(f"Unsupported input type: {in_dtype}.", TypeError)
        tl = ws.inputs[0]
        return _operator.Plan([_operator.OutputDesc(ws.input_storage(0).shapes, self.dtype,
                                                    tl.layout())])

    def run_cpu(self, ws, plan):
        _kernel.preemphasis_batch(ws.thread_pool, ws.input_storage(0),
                                  ws.outputs[0], ws.arg_array("preemph_coeff", np.float32),
                                  self.args["border"])

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        program = _preemphasis_filter_gpu.program(
            src.shapes, ws.arg_array("preemph_coeff", np.float32), self.args["border"],
            src.dtype, out.dtype, src.offsets, out.offsets)
        _gpu_program.run(ws.gpu, program, src, out)
