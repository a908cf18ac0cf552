"""fn.power_spectrum: |FFT|^power of float32 samples along one axis.

The first `nfft` elements along `axis` (all of them by default, zero-padded when there are
fewer) are transformed; the axis becomes the `nfft // 2 + 1` non-negative frequency bins and
the layout is kept.  A negative `axis` is the last one, as in DALI.  One call of the
`spectral` kernel per batch (samples whose FFT sizes differ get their own plans).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import spectral as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.signal import _fft


@_registry.register
class PowerSpectrum(_operator.Operator):
    schema = Schema(
        "power_spectrum", inputs=1, outputs=1, devices=("cpu",),
        doc="Calculates the power spectrum of the signal.",
        args=[Arg("axis", T.INT32, -1,
                  doc="Index of the dimension to transform to the frequency domain (negative: "
                      "the last one)."),
              Arg("nfft", T.INT32, None,
                  doc="Size of the FFT (default: the length of the data along `axis`); the "
                      "output has `nfft // 2 + 1` bins, the positive part of the spectrum."),
              Arg("power", T.INT32, 2,
                  doc="Exponent of the FFT magnitude: 2 for the power spectrum "
                      "`(real*real + imag*imag)`, 1 for the magnitude "
                      "`sqrt(real*real + imag*imag)`.")])

    def setup(self):
        _fft.check_power(self, self.args["power"])
        if self.args["nfft"] is not None:
            _fft.check_nfft(self, self.args["nfft"])
        self._memo = _operator.LastPlan()  # the last batch's plan (arguments are constants)

    def infer(self, ws):
        if ws.input_dtype(0) != np.float32:
            raise self.error(f"The input must be float32, got {ws.input_dtype(0)}.", TypeError)
        storage = ws.input_storage(0)
        # the plan depends only on the input's shapes and layout
        key = _operator.shapes_key(storage.shapes, ws.inputs[0].layout())
        if (kept := self._memo.get(key)) is not None:
            return kept
        plan = self._plan(ws, storage)
        return self._memo.keep(key, plan)

    def _plan(self, ws, storage):
        ndim = storage.ndim
        axis = self.args["axis"]
        axis = ndim - 1 if axis < 0 else axis
        if ndim == 0 or axis >= ndim:
            raise self.error(f"Transform axis {self.args['axis']} is out of bounds [0, {ndim}) "
                             "(`axis`).")
        shapes = np.array(storage.shapes, np.int64).reshape(-1, ndim)
        if self.args["nfft"] is None:
            nffts = shapes[:, axis].copy()
            short = nffts < _fft.MIN_NFFT
            if short.any():
                i = int(np.argmax(short))
                raise ws.sample_error(i, f"The transformed axis has {nffts[i]} elements: the "
                                         f"FFT size (`nfft`) must be at least {_fft.MIN_NFFT}.")
        else:
            nffts = np.full(len(shapes), self.args["nfft"], np.int64)
        if len(nffts) and (nffts == nffts[0]).all():     # one size: one plan, no sorting
            ffts = [_fft.plan(int(nffts[0]))] * len(nffts)
        else:
            sizes, index = np.unique(nffts, return_inverse=True)
            plans = [_fft.plan(int(n)) for n in sizes]
            ffts = [plans[k] for k in index.tolist()]
        shapes[:, axis] = nffts // 2 + 1
        shapes.flags.writeable = False
        return _operator.Plan([_operator.OutputDesc(shapes, np.float32, ws.inputs[0].layout())],
                              axis=axis, ffts=ffts)

    def run_cpu(self, ws, plan):
        _kernel.power_spectrum_batch(ws.thread_pool, ws.input_storage(0),
                                     ws.outputs[0], plan.ffts, plan.axis, self.args["power"])
