"""fn.spectrogram: the short-time Fourier transform's magnitude or power of 1-D float32
signals.

Window t starts at `t * window_step`, or with `center_windows` is centred there (starts
`window_length // 2` earlier, the signal mirrored at its ends without repeating them with
`reflect_padding`, else zero-padded); a signal of n samples gives `n // window_step + 1`
centred windows, or `trunc((n - window_length) / window_step) + 1` others (C's division, so
a signal slightly shorter than a window still gives one, zero-padded).  Each window is
multiplied by `window_fn` (DALI's Hann window by default, 0.5 - 0.5 cos(2 pi (k + 0.5) / N)),
zero-padded to `nfft` and transformed; the output holds |X|^power of the `nfft // 2 + 1`
bins, layout "ft" (bins x windows) or "tf".  One call of the `spectral` kernel per batch; on
the GPU `spectrogram.cu` computes each bin's DFT directly in double (within the tolerance
`_spectrogram_gpu` states of the CPU's float FFT).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import spectral as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _gpu_program
from dali.ops.signal import _fft, _spectrogram_gpu


def hann(n):
    """DALI's Hann window of n points."""
    return (0.5 - 0.5 * np.cos(2 * np.pi * (np.arange(n) + 0.5) / n)).astype(np.float32)


@_registry.register
class Spectrogram(_operator.Operator):
    schema = Schema(
        "spectrogram", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Produces a spectrogram from a 1D signal (for example, audio).\n\n"
            "Input data is expected to be one channel (shape being `(nsamples,)`, "
            "`(nsamples, 1)`, or `(1, nsamples)`) of type float32.",
        args=[Arg("center_windows", T.BOOL, True,
                  doc="Pad the signal so that the windows are centred at multiples of "
                      "`window_step`; if False, only windows within the signal are taken."),
              Arg("layout", T.TENSOR_LAYOUT, "ft",
                  doc='Output layout: "ft" (frequency-major) or "tf" (time-major).'),
              Arg("nfft", T.INT32, None,
                  doc="Size of the FFT (default: `window_length`); the output has "
                      "`nfft // 2 + 1` bins, the positive part of the spectrum."),
              Arg("power", T.INT32, 2,
                  doc="Exponent of the magnitude of the spectrum: 1 (amplitude) or 2 "
                      "(power)."),
              Arg("reflect_padding", T.BOOL, True,
                  doc="Outside the signal, mirror it at the boundary (True) or pad with zeros; "
                      "ignored without `center_windows`."),
              Arg("window_fn", T._FLOAT_VEC, None,
                  doc="The window function's `window_length` samples, multiplied with each "
                      "window (default: a Hann window)."),
              Arg("window_length", T.INT32, 512, doc="Window size in samples."),
              Arg("window_step", T.INT32, 256, doc="Step between the windows in samples.")])

    def setup(self):
        a = self.args
        wl, step = a["window_length"], a["window_step"]
        if wl <= 0:
            raise self.error(f"Invalid window length: {wl} (`window_length` must be positive).")
        if step <= 0:
            raise self.error(f"Invalid window step: {step} (`window_step` must be positive).")
        nfft = wl if a["nfft"] is None else a["nfft"]
        if wl > nfft:
            raise self.error(f"Window length ({wl}) can't be bigger than the FFT size ({nfft}) "
                             "(`window_length`, `nfft`).")
        _fft.check_nfft(self, nfft)
        _fft.check_power(self, a["power"])
        if a["layout"] not in ("ft", "tf"):
            raise self.error(f'Unexpected layout: {a["layout"]} (`layout` must be "ft" or '
                             '"tf").')
        if a["window_fn"] is None:
            self.window = hann(wl)
        else:
            self.window = np.asarray(a["window_fn"], np.float32)
            if self.window.size != wl:
                raise self.error(f"`window_fn` has {self.window.size} values, it should match "
                                 f"`window_length` ({wl}).")
        self.fft = _fft.plan(nfft)

    def infer(self, ws):
        if ws.input_dtype(0) != np.float32:
            raise self.error(f"The input must be float32, got {ws.input_dtype(0)}.", TypeError)
        shapes = np.asarray(ws.input_storage(0).shapes, np.int64).reshape(ws.batch_size, -1)
        a = self.args
        lengths = shapes.prod(axis=1)
        step = a["window_step"]
        if a["center_windows"]:
            windows = lengths // step + 1
        else:   # C's division truncates toward zero
            windows = np.trunc((lengths - a["window_length"]) / step).astype(np.int64) + 1
        bad = (lengths == 0) | ((shapes != 1).sum(axis=1) > 1) | (windows < 1)
        if bad.any():
            i = int(np.argmax(bad))
            shape, n = tuple(shapes[i].tolist()), int(lengths[i])
            if n == 0:
                raise ws.sample_error(i, "Spectrogram does not support empty samples (shape "
                                         f"{shape}).")
            if windows[i] >= 1:
                raise ws.sample_error(i, "Input data must be 1D or all but one dimensions must "
                                         f"be degenerate (extent 1). Got: {shape}")
            raise ws.sample_error(i, f"Signal is too short ({n}) for one window of "
                                     f"{a['window_length']} samples.")
        bins = np.full_like(windows, self.fft.n // 2 + 1)
        outs = np.stack([bins, windows] if a["layout"] == "ft" else [windows, bins], axis=1)
        return _operator.Plan([_operator.OutputDesc(outs, np.float32, a["layout"])])

    def run_cpu(self, ws, plan):
        a = self.args
        _kernel.spectrogram_batch(ws.thread_pool, ws.input_storage(0),
                                  ws.outputs[0], self.fft, self.window, a["window_step"],
                                  a["center_windows"], a["reflect_padding"], a["power"],
                                  a["layout"] == "tf")

    def run_gpu(self, ws, plan):
        a = self.args
        src, out = ws.input_storage(0), ws.outputs[0]
        program = _spectrogram_gpu.program(src.shapes, plan.outputs[0].shapes, self.fft.n,
                                           self.window, a["window_step"],
                                           a["center_windows"], a["reflect_padding"],
                                           a["power"], a["layout"] == "tf", src.offsets,
                                           out.offsets)
        _gpu_program.run(ws.gpu, program, src, out)
