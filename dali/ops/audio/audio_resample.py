"""fn.audio_resample (and its older name fn.experimental.audio_resample): resamples audio
signals with DALI's Hann-windowed sinc filter.

The factor comes from exactly one of `scale`, `out_length` or `in_rate` with `out_rate`, per
sample.  The output has ceil(length * out_rate / in_rate) samples (DALI's float32 rates),
keeps the channels (innermost axis of 2-D input) and the layout.  Values are read and written
normalized (integers span -1..1, see `dtype`), so the type can change on the way.  The
arithmetic is DALI's (`_ext/kernels/audio_resample.h`): float results agree with DALI 2.4 to
a few float32 ulps; no resampling shortcut is taken for a factor of 1, as DALI takes none.
On the GPU `audio_resample.cu` computes the CPU kernel's float operations, bit for bit.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _aliases, _gpu_program
from dali.ops.audio import _audio_resample_gpu, _resampling

_FACTORS = ("scale", "out_length", "in_rate", "out_rate")


@_registry.register
class AudioResample(_operator.Operator):
    schema = Schema(
        "audio_resample", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Resamples an audio signal.\n\n"
            "The resampling is achieved by applying a sinc filter with Hann window with an "
            "extent controlled by the `quality` argument.\n\n"
            "The resampling ratio can be specified directly or as a ratio of target to source "
            "sampling rate, or calculated from the ratio of the requested output length to the "
            "input length. The input is 1-D (time) or 2-D (time, channels).",
        args=[Arg("dtype", T.DATA_TYPE, None,
                  doc="The output type (default: the input's): int8, uint8, int16, uint16, "
                      "int32, uint32 or float. When the type changes the values are normalized "
                      "to fill the target's range: integers span -1..1 (unsigned ones with 0 at "
                      "half range), float inputs are assumed to lie in -1..1."),
              Arg("in_rate", T.FLOAT, None, tensor=True,
                  doc="Input sampling rate, given together with `out_rate` (any unit, the "
                      "same for both); not with `scale` or `out_length`."),
              Arg("out_rate", T.FLOAT, None, tensor=True,
                  doc="Output sampling rate, given together with `in_rate`."),
              Arg("out_length", T.INT64, None, tensor=True,
                  doc="The requested output length, in samples; the scaling factor is its "
                      "ratio to the input length. Not with `in_rate`, `out_rate` or `scale`."),
              _resampling.quality_arg(),
              Arg("scale", T.FLOAT, None, tensor=True,
                  doc="The scaling factor: the ratio of the target sampling rate to the "
                      "source's (``scale=2`` gives twice as many samples). Not with `in_rate`, "
                      "`out_rate` or `out_length`.")])

    def setup(self):
        given = {name for name in _FACTORS if self.args[name] is not None
                 or name in self.spec.given}
        if ("in_rate" in given) != ("out_rate" in given):
            raise self.error("The parameters ``in_rate`` and ``out_rate`` must be specified "
                             "together.", RuntimeError)
        if len(given - {"out_rate"}) > 1:
            raise self.error("The sampling rates, ``scale`` and ``out_length`` cannot be used "
                             "together.", RuntimeError)
        if not given:
            raise self.error("No resampling factor specified! Please supply either the "
                             "scale, the output length or the input and output sampling "
                             "rates.", RuntimeError)
        self.factor = min(given)          # "in_rate" stands for both rates
        self.lobes = _resampling.lobes(self, self.args["quality"])
        dtype = self.args["dtype"]
        self.dtype = None if dtype is None else self._supported(_types.dtype_of(T(dtype)))

    def _supported(self, dtype):
        if np.dtype(dtype) not in _resampling.TYPES:
            raise self.error(f"Unsupported output type: {np.dtype(dtype)}\nSupported types "
                             f"are : {_resampling.TYPE_NAMES}", RuntimeError)
        return np.dtype(dtype)

    def infer(self, ws):
        in_dtype = self._supported(ws.input_dtype(0))
        storage = ws.input_storage(0)
        n = ws.batch_size
        if n and storage.ndim not in (1, 2):
            raise ws.sample_error(0, "Audio resampling supports only time series data, with "
                                     "an optional innermost channel dimension.", RuntimeError)
        shapes = np.asarray(storage.shapes, np.int64).reshape(n, storage.ndim)
        lengths = shapes[:, 0] if n else np.zeros(0, np.int64)
        in_rate, out_rate = self._rates(ws, lengths)
        bad = np.flatnonzero(~(in_rate > 0))
        if len(bad):
            raise ws.sample_error(int(bad[0]), f"Input sampling rates must be positive. Got "
                                               f"in_rate == {in_rate[bad[0]]:g}", RuntimeError)
        bad = np.flatnonzero(out_rate < 0)
        if len(bad):
            raise ws.sample_error(int(bad[0]), f"Output sampling rates must be non-negative. "
                                               f"Got out_rate == {out_rate[bad[0]]:g}",
                                  RuntimeError)
        out_shapes = shapes.copy()
        out_shapes[:, 0] = np.ceil(lengths * out_rate / in_rate)
        work = (out_shapes[:, 0] > 0) & (lengths > 0)
        scales = np.ones(n)
        scales[work] = in_rate[work] / out_rate[work]
        dtype = self.dtype or in_dtype
        return _operator.Plan([_operator.OutputDesc(out_shapes, dtype, ws.inputs[0].layout(),
                                                    ndim=storage.ndim)],
                              scales=scales)

    def _rates(self, ws, lengths):
        """(in_rate, out_rate) per sample (float64 arrays of DALI's float32 values), from
        whichever factor was given."""
        if self.factor == "in_rate":
            return (ws.arg_array("in_rate", np.float32).astype(np.float64),
                    ws.arg_array("out_rate", np.float32).astype(np.float64))
        if self.factor == "scale":
            scale = ws.arg_array("scale", np.float32).astype(np.float64)
            bad = np.flatnonzero(scale < 0)
            if len(bad):
                raise ws.sample_error(int(bad[0]), f"The scaling factor must be non-negative. "
                                                   f"Got scale == {scale[bad[0]]:g}",
                                      RuntimeError)
            return np.ones_like(scale), scale
        out_length = ws.arg_array("out_length", np.int64)
        bad = np.flatnonzero(out_length < 0)
        if len(bad):
            raise ws.sample_error(int(bad[0]), f"The output length must be non-negative. Got "
                                               f"out_length == {out_length[bad[0]]}",
                                  RuntimeError)
        empty = lengths == 0
        return (np.where(empty, 1.0, lengths).astype(np.float64),
                np.where(empty, 0.0, out_length).astype(np.float64))

    def run_cpu(self, ws, plan):
        src, dst = ws.input_storage(0), ws.outputs[0]
        if src.is_contiguous and dst.is_contiguous:
            _resampling.resample_storage(ws.thread_pool, src, dst, plan.scales, self.lobes)
            return
        inputs = [np.ascontiguousarray(x.reshape(x.shape[0], -1)) for x in ws.input_samples(0)]
        outputs = [y.reshape(y.shape[0], -1) for y in ws.output_samples(0)]
        _resampling.resample(ws.thread_pool, inputs, outputs, plan.scales, self.lobes)

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        program = _audio_resample_gpu.program(src.shapes, plan.outputs[0].shapes, src.dtype,
                                              out.dtype, plan.scales,
                                              _resampling.window(self.lobes), self.lobes,
                                              src.offsets, out.offsets)
        _gpu_program.run(ws.gpu, program, src, out)


ALIASES = [_aliases.deprecated_alias("experimental.audio_resample", AudioResample,
                                     "it moved out of `experimental`", module=__name__)]
