"""fn.to_decibels: `multiplier * log10(max(min_ratio, x / reference))` elementwise, with
min_ratio = 10^(cutoff_db / multiplier) and, when `reference` is 0 (not given), each sample's
maximum as its reference.  Float32 in and out, any shape, the layout kept; one call of the
`decibels` kernel per batch.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import decibels as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _gpu_program
from dali.ops.signal import _to_decibels_gpu


@_registry.register
class ToDecibels(_operator.Operator):
    schema = Schema(
        "to_decibels", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Converts a magnitude (real, positive) to the decibel scale:\n\n"
            "    min_ratio = pow(10, cutoff_db / multiplier)\n"
            "    out[i] = multiplier * log10(max(min_ratio, input[i] / reference))",
        args=[Arg("cutoff_db", T.FLOAT, -200.0,
                  doc="Minimum or cut-off ratio in dB: lower values saturate (-80 is a minimum "
                      "ratio of 1e-8)."),
              Arg("multiplier", T.FLOAT, 10.0,
                  doc="Factor by which the logarithm is multiplied: typically 10.0 (powers) or "
                      "20.0 (magnitudes)."),
              Arg("reference", T.FLOAT, 0.0,
                  doc="Reference magnitude (0: the maximum of each sample).")])

    def setup(self):
        if self.args["multiplier"] == 0:
            raise self.error("`multiplier` must not be 0 (float division by zero).",
                             ZeroDivisionError)

    def infer(self, ws):
        if ws.input_dtype(0) != np.float32:
            raise self.error(f"Unsupported data type: {ws.input_dtype(0)} (the input must be "
                             "float32).", TypeError)
        return _operator.Plan([_operator.OutputDesc(ws.input_storage(0).shapes, np.float32,
                                                    ws.inputs[0].layout())])

    def run_cpu(self, ws, plan):
        a = self.args
        _kernel.decibels_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0],
                               a["multiplier"], a["reference"], a["cutoff_db"])

    def run_gpu(self, ws, plan):
        a = self.args
        src, out = ws.input_storage(0), ws.outputs[0]
        program = _to_decibels_gpu.program(src.shapes, a["multiplier"], a["reference"],
                                           a["cutoff_db"], src.offsets, out.offsets)
        _gpu_program.run(ws.gpu, program, src, out)
