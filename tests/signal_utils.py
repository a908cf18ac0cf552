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
    scale = np.abs(ref).max() if ref.size else 0.0
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=rtol * max(scale, 1e-30))


def _hz_to_mel(f, formula):
    if formula == "htk":
        return 2595.0 * np.log10(1 + f / 700.0)
    return 15.0 + 27.0 * np.log(f / 1000.0) / np.log(6.4) if f >= 1000 else f / (200.0 / 3)


def _mel_to_hz(m, formula):
    if formula == "htk":
        return 700.0 * (10 ** (m / 2595.0) - 1)
    return 1000.0 * 6.4 ** ((m - 15.0) / 27.0) if m >= 15 else m * 200.0 / 3


def mel_bank(nbins, nfilter=128, sample_rate=44100.0, freq_low=0.0, freq_high=0.0,
             mel_formula="slaney", normalize=True):
    """The (nfilter, nbins) triangular filters (librosa's construction, filter by filter)."""
    freq_high = freq_high or sample_rate / 2
    mlo, mhi = _hz_to_mel(freq_low, mel_formula), _hz_to_mel(freq_high, mel_formula)
    hz = [_mel_to_hz(mlo + (mhi - mlo) * i / (nfilter + 1), mel_formula)
          for i in range(nfilter + 2)]
    freqs = np.arange(nbins) * sample_rate / (2 * (nbins - 1))
    bank = np.zeros((nfilter, nbins))
    for m in range(nfilter):
        lo, mid, hi = hz[m], hz[m + 1], hz[m + 2]
        for k, f in enumerate(freqs):
            if lo < f < hi:
                bank[m, k] = (f - lo) / (mid - lo) if f <= mid else (hi - f) / (hi - mid)
        if normalize:
            bank[m] *= 2.0 / (hi - lo)
    return bank
