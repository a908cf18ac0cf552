"""fn.audio_resample (and its older name fn.experimental.audio_resample): resamples audio
signals with DALI's Hann-windowed sinc filter.

The factor comes from exactly one of `scale`, `out_length` or `in_rate` with `out_rate`, per
sample.  The output has ceil(length * out_rate / in_rate) samples (DALI's float32 rates),
keeps the channels (innermost axis of 2-D input) and the layout.  Values are read and written
normalized (integers span -1..1, see `dtype`), so the type can change on the way.  The
arithmetic is DALI's (`_ext/kernels/audio_resample.h`): float results agree with DALI 2.4 to
a few float32 ulps; no resampling shortcut is taken for a factor of 1, as DALI takes none.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _aliases
from dali.ops.audio import _resampling

_FACTORS = ("scale", "out_length", "in_rate", "out_rate")


@_registry.register
class AudioResample(_operator.Operator):
    schema = Schema(
        "audio_resample", inputs=1, outputs=1, devices=("cpu",),
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
        samples = ws.input_samples(0)
        lengths = np.empty(len(samples), np.int64)
        scales = np.ones(len(samples))
        shapes = []
        for i, (x, (in_rate, out_rate)) in enumerate(zip(samples, self._rates(ws, samples),
                                                         strict=True)):
            if x.ndim not in (1, 2):
                raise ws.sample_error(i, "Audio resampling supports only time series data, "
                                         "with an optional innermost channel dimension.",
                                      RuntimeError)
            if not in_rate > 0:
                raise ws.sample_error(i, f"Input sampling rates must be positive. Got in_rate "
                                         f"== {in_rate:g}", RuntimeError)
            if out_rate < 0:
                raise ws.sample_error(i, f"Output sampling rates must be non-negative. Got "
                                         f"out_rate == {out_rate:g}", RuntimeError)
            lengths[i] = _resampling.length(x.shape[0], in_rate, out_rate)
            if lengths[i] and x.shape[0]:
                scales[i] = in_rate / out_rate
            shapes.append((int(lengths[i]),) + x.shape[1:])
        dtype = self.dtype or in_dtype
        return _operator.Plan([_operator.OutputDesc(shapes, dtype, ws.inputs[0].layout())],
                              scales=scales)

    def _rates(self, ws, samples):
        """(in_rate, out_rate) of every sample, from whichever factor was given."""
        if self.factor == "in_rate":
            return [(_resampling.as_float(a), _resampling.as_float(b))
                    for a, b in zip(ws.arg("in_rate"), ws.arg("out_rate"), strict=True)]
        if self.factor == "scale":
            rates = []
            for i, s in enumerate(ws.arg("scale")):
                if s < 0:
                    raise ws.sample_error(i, f"The scaling factor must be non-negative. Got "
                                             f"scale == {s:g}", RuntimeError)
                rates.append((1.0, _resampling.as_float(s)))
            return rates
        rates = []
        for i, (x, m) in enumerate(zip(samples, ws.arg("out_length"), strict=True)):
            if m < 0:
                raise ws.sample_error(i, f"The output length must be non-negative. Got "
                                         f"out_length == {m}", RuntimeError)
            rates.append((float(max(x.shape[0], 1)), float(m)) if x.shape[0] else (1.0, 0.0))
        return rates

    def run_cpu(self, ws, plan):
        inputs = [np.ascontiguousarray(x.reshape(x.shape[0], -1) if x.ndim == 1 else x)
                  for x in ws.input_samples(0)]
        outputs = [y.reshape(y.shape[0], -1) if y.ndim == 1 else y
                   for y in ws.output_samples(0)]
        _resampling.resample(ws.thread_pool, inputs, outputs, plan.scales, self.lobes)


ALIASES = [_aliases.deprecated_alias("experimental.audio_resample", AudioResample,
                                     "it moved out of `experimental`", module=__name__)]
