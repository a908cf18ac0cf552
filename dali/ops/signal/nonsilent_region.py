"""fn.nonsilent_region: the beginning and length of the non-silent part of 1-D signals.

A window's short-term power is the mean square of the `window_length` samples ending there
(fewer at the start, still divided by `window_length`); it is silent when 10 log10(power /
reference_power) < `cutoff_db`, the reference being each signal's largest short-term power
unless given.  The region runs from `window_length - 1` samples before the end of the first
non-silent window (at least 0) to the end of the last one; (0, 0) when all is silent.  Float
signals keep the power as a running sum recomputed at multiples of `reset_interval` (which,
as in DALI, must be a multiple of `window_length`, or -1 for never); integer signals sum
exactly.  Outputs: two int32 scalars per sample.  One call of the `nonsilent` kernel per batch;
on the GPU `nonsilent_region.cu`, one thread per signal, the same results.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import nonsilent as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.signal import _nonsilent_region_gpu


@_registry.register
class NonsilentRegion(_operator.Operator):
    schema = Schema(
        "nonsilent_region", inputs=1, outputs=2, devices=("cpu", "gpu"),
        doc="Performs leading and trailing silence detection in an audio buffer.\n\n"
            "Returns the beginning and length of the non-silent region, comparing the short "
            "term power over `window_length` samples with a cut-off: a window is silent when "
            "`10 * log10(short_term_power / reference_power)` is less than `cutoff_db`; the "
            "reference is the maximum power of the signal unless given.\n\n"
            "Input 0: a 1-D audio buffer.  Output 0: the index of the first sample of the "
            "non-silent region; output 1: its length (0, with begin 0, when all is silent).",
        args=[Arg("cutoff_db", T.FLOAT, -60.0,
                  doc="The threshold, in dB, below which the signal is considered silent."),
              Arg("reference_power", T.FLOAT, 0.0,
                  doc="The reference power for the dB conversion (0: the maximum power of "
                      "the signal)."),
              Arg("reset_interval", T.INT32, 8192,
                  doc="The number of samples after which the moving mean is recalculated to "
                      "avoid loss of precision (a multiple of `window_length`; -1: never; "
                      "integer input is summed exactly)."),
              Arg("window_length", T.INT32, 2048,
                  doc="Size of the sliding window used to calculate the short-term power.")])

    def setup(self):
        a = self.args
        if a["window_length"] <= 0:
            raise self.error(f"`window_length` must be positive, got {a['window_length']}.")
        reset = a["reset_interval"]
        if reset != -1 and (reset <= 0 or reset % a["window_length"]):
            raise self.error("`reset_interval` shall be a multiple of `window_length`. Got: "
                             f"reset_interval: {reset} vs window_length: {a['window_length']}")

    def infer(self, ws):
        dtype = ws.input_dtype(0)
        if not _kernel.supports(dtype):
            raise self.error(f"Unsupported input type: {dtype}.", TypeError)
        if ws.inputs[0].ndim() != 1:
            raise self.error(f"The input must be 1-D signals, got {ws.inputs[0].ndim()} "
                             "dimensions.")
        shapes = [()] * ws.batch_size
        return _operator.Plan([_operator.OutputDesc(shapes, np.int32, ""),
                               _operator.OutputDesc(shapes, np.int32, "")])

    def run_cpu(self, ws, plan):
        a = self.args
        _kernel.nonsilent_batch(ws.thread_pool, ws.input_storage(0),
                                ws.outputs[0].dense(), ws.outputs[1].dense(),
                                a["window_length"], a["reset_interval"], a["cutoff_db"],
                                a["reference_power"])

    def run_gpu(self, ws, plan):
        a = self.args
        src, begin, length = ws.input_storage(0), ws.outputs[0], ws.outputs[1]
        launch = _nonsilent_region_gpu.launch(src.shapes, src.dtype, a["window_length"],
                                              a["reset_interval"], a["cutoff_db"],
                                              a["reference_power"], src.offsets,
                                              begin.offsets, length.offsets)
        if launch is not None:
            buffers = {"src": src, "begin": begin, "length": length}
            ws.gpu.launch(launch.module, launch.kernel, launch.grid, launch.block,
                          tuple(buffers[x] if isinstance(x, str) else x for x in launch.args))
