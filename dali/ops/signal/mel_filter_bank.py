"""fn.mel_filter_bank: a bank of triangular filters, evenly spaced on the mel scale, applied
to the frequency axis of spectrograms.

For a spectrogram of `nbins` bins (nfft = 2 (nbins - 1)), filter m (of `nfilter`) rises
linearly from hz[m] to hz[m+1] and falls to hz[m+2], hz being `nfilter + 2` points evenly
spaced in mels from `freq_low` to `freq_high` (default sample_rate / 2), bin k sitting at
k sample_rate / nfft; with `normalize` each filter is scaled by 2 / (hz[m+2] - hz[m]) (unit
area).  Mel scales: "slaney" (linear below 1 kHz, mel = 3 f / 200, logarithmic above, as
librosa) or "htk" (2595 log10(1 + f / 700)).  The frequency axis is the layout's "f"; without
a layout, 0 for 1-D and 2-D input ("f", "ft") and the second last otherwise ("*ft").  The
matrix is made in double precision once per bin count and applied by the `axis_matmul`
kernel over its non-zero band of each filter.
"""

from __future__ import annotations

import functools

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import axis_matmul as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.signal import _axes, _axis_matmul_gpu

_SLANEY_STEP = np.log(6.4) / 27.0     # log-spaced mels above 1 kHz (mel 15)


def hz_to_mel(f, formula):
    f = np.asarray(f, np.float64)
    if formula == "htk":
        return 2595.0 * np.log10(1.0 + f / 700.0)
    high = 15.0 + np.log(np.maximum(f, 1000.0) / 1000.0) / _SLANEY_STEP
    return np.where(f >= 1000.0, high, f * 3.0 / 200.0)


def mel_to_hz(m, formula):
    m = np.asarray(m, np.float64)
    if formula == "htk":
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    return np.where(m >= 15.0, 1000.0 * np.exp(_SLANEY_STEP * (m - 15.0)), m * 200.0 / 3.0)


@functools.lru_cache(maxsize=64)
def filter_bank(nbins, nfilter, sample_rate, freq_low, freq_high, formula, normalize):
    """The bank as an `AxisMatrix` of (nfilter, nbins) float32 weights."""
    hz = mel_to_hz(np.linspace(hz_to_mel(freq_low, formula), hz_to_mel(freq_high, formula),
                               nfilter + 2), formula)
    f = np.arange(nbins) * (sample_rate / (2.0 * max(nbins - 1, 1)))
    lo, mid, hi = hz[:-2, None], hz[1:-1, None], hz[2:, None]
    w = np.maximum(0.0, np.minimum((f - lo) / (mid - lo), (hi - f) / (hi - mid)))
    if normalize:
        w *= 2.0 / (hi - lo)
    return _kernel.AxisMatrix(w.astype(np.float32))


@_registry.register
class MelFilterBank(_operator.Operator):
    schema = Schema(
        "mel_filter_bank", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Converts a spectrogram to a mel spectrogram by applying a bank of triangular "
            "filters.\n\nThe frequency ('f') dimension is selected from the input layout; "
            'without a layout, "f", "ft", or "*ft" is assumed, depending on the number of '
            "dimensions.",
        args=[Arg("freq_high", T.FLOAT, 0.0,
                  doc="The maximum frequency (0: `sample_rate / 2`)."),
              Arg("freq_low", T.FLOAT, 0.0, doc="The minimum frequency."),
              Arg("mel_formula", T.STRING, "slaney",
                  doc='The hertz <-> mel formula: "slaney" (Slaney\'s Auditory Toolbox: linear '
                      'below 1 kHz, logarithmic above; librosa\'s default) or "htk" '
                      "(`m = 2595 * log10(1 + f / 700)`, as the Hidden Markov Toolkit)."),
              Arg("nfilter", T.INT32, 128, doc="Number of mel filters."),
              Arg("normalize", T.BOOL, True,
                  doc="Normalize each triangular filter by the width of its band (its integral "
                      "is 1); if False, the peak of every filter is 1."),
              Arg("sample_rate", T.FLOAT, 44100.0,
                  doc="Sampling rate of the audio signal.")])

    def setup(self):
        a = self.args
        if a["mel_formula"] not in ("slaney", "htk"):
            raise self.error(f'Unsupported mel_formula value "{a["mel_formula"]}". Supported '
                             'values are: "slaney", "htk"')
        if a["nfilter"] <= 0:
            raise self.error("number of filters should be > 0 (`nfilter`).")
        if a["sample_rate"] <= 0:
            raise self.error("sample rate should be > 0 (`sample_rate`).")
        if a["freq_low"] < 0:
            raise self.error("freq_low should be >= 0 (`freq_low`).")
        high = a["freq_high"] or a["sample_rate"] / 2
        if not a["freq_low"] < high <= a["sample_rate"]:
            raise self.error("freq_high should be within the range (freq_low, sample_rate] "
                             "(`freq_high`).")
        self.bank = functools.partial(
            filter_bank, nfilter=a["nfilter"], sample_rate=float(a["sample_rate"]),
            freq_low=float(a["freq_low"]), freq_high=float(high), formula=a["mel_formula"],
            normalize=bool(a["normalize"]))
        self._memo = _operator.LastPlan()  # the last batch's plan (arguments are constants)

    def infer(self, ws):
        _axes.check_float(self, ws)
        tl = ws.inputs[0]
        # the plan depends only on the input's shapes and layout
        key = _operator.shapes_key(ws.input_storage(0).shapes, tl.layout())
        if (kept := self._memo.get(key)) is not None:
            return kept
        return self._memo.keep(key, self._plan(ws, tl))

    def _plan(self, ws, tl):
        layout, ndim = tl.layout(), tl.ndim()
        if layout:
            axis = layout.find("f")
            if axis < 0:
                raise self.error(f"'f' axis not present in the layout. Got: `{layout}`")
        elif ndim == 0:
            raise self.error("The input must have at least one dimension (the frequency).")
        else:
            axis = 0 if ndim <= 2 else ndim - 2
        shapes, matrices = _axes.shapes_and_matrices(ws, axis, self.bank)
        return _operator.Plan([_operator.OutputDesc(shapes, np.float32, layout)],
                              axis=axis, matrices=matrices)

    def run_cpu(self, ws, plan):
        _kernel.matmul_axis_batch(ws.thread_pool, ws.input_storage(0),
                                  ws.outputs[0], plan.matrices, plan.axis)

    def run_gpu(self, ws, plan):
        _axis_matmul_gpu.run(ws, plan)
