"""Helpers shared by the signal operators' tests (tests/ops/signal): the golden cases of
goldens/signal.npz (made by goldens/make_signal.py with real DALI) and NumPy references."""

from __future__ import annotations

import numpy as np
from golden_cases import case_indices, load_case
from pipeline_utils import run_op

GOLDEN = "signal.npz"


def golden_cases(op):
    """The indices of the golden cases of operator `op` (for parametrize)."""
    out = []
    for k in case_indices(GOLDEN):
        case, *_ = load_case(GOLDEN, k, 0)
        if case["op"] == op:
            out.append(k)
    return out


def run_golden(k):
    """(dali's outputs, the recorded outputs) of golden case k, as lists of samples."""
    case, args, layouts, batch, expected = load_case(GOLDEN, k, 3, type_keys=("dtype",))

    def build(fn, x):
        out = getattr(fn, case["op"])(x, **args)
        return fn.stack(*out) if case["op"] == "nonsilent_region" else out
    (out,) = run_op(build, [batch], layouts=[layouts[case["input"]] or None])
    return out, expected


def hann(n):
    """DALI's Hann window: 0.5 - 0.5 cos(2 pi (k + 0.5) / n)."""
    return 0.5 - 0.5 * np.cos(2 * np.pi * (np.arange(n) + 0.5) / n)


def round_half_away(x):
    return np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5))


def _reflect101(i, n):
    if n == 1:
        return np.zeros_like(i)
    period = 2 * (n - 1)
    i = np.abs(i) % period
    return np.where(i < n, i, period - i)


def spectrogram(x, nfft=None, window_length=512, window_step=256, window_fn=None, power=2,
                center_windows=True, reflect_padding=True, layout="ft"):
    """NumPy spectrogram with DALI's windows (see dali/ops/signal/spectrogram.py)."""
    x = np.asarray(x, np.float64).reshape(-1)
    n, wl, step = x.size, window_length, window_step
    nfft = nfft or wl
    w = hann(wl) if window_fn is None else np.asarray(window_fn, np.float64)
    if center_windows:
        count, first = n // step + 1, -(wl // 2)
    else:
        count, first = int((n - wl) / step) + 1, 0
    idx = first + step * np.arange(count)[:, None] + np.arange(wl)[None, :]
    inside = (idx >= 0) & (idx < n)
    if center_windows and reflect_padding:
        frames = x[_reflect101(idx, n)]
    else:
        frames = np.where(inside, x[np.clip(idx, 0, n - 1)], 0.0)
    out = np.abs(np.fft.rfft(frames * w, nfft, axis=1)) ** power
    return out.T if layout == "ft" else out


def assert_spectrum_close(out, ref, rtol=1e-4):
    """Float32 spectra: within `rtol` of the reference relative to its largest value."""
    assert out.dtype == np.float32 and out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=rtol * max(np.abs(ref).max(), 1e-30))
