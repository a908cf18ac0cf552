"""fn.spectrogram: NumPy reference over random lengths, windows and options, goldens and real
DALI, and DALI's errors."""

import numpy as np
import pytest
from layout_utils import run_layouts
from pipeline_utils import run_op
from signal_utils import assert_spectrum_close, golden_cases, run_golden, spectrogram

from dali.ops.signal.spectrogram import hann


def test_hann_window():
    # the periodic-symmetric window DALI uses: 0.5 - 0.5 cos(2 pi (k + 0.5) / n)
    np.testing.assert_allclose(hann(4), [0.1464466, 0.8535534, 0.8535534, 0.1464466],
                               rtol=1e-6)


@pytest.mark.parametrize("seed", range(12))
def test_random_against_numpy(seed):
    rng = np.random.default_rng(seed)
    wl = int(rng.integers(3, 70))
    kwargs = dict(window_length=wl, nfft=wl + int(rng.integers(0, 40)) * (seed % 2),
                  window_step=int(rng.integers(1, 50)), power=1 + seed % 2,
                  center_windows=seed % 3 != 0, reflect_padding=seed % 4 < 2,
                  layout="ft" if seed % 5 < 3 else "tf")
    if seed % 4 == 3:
        kwargs["window_fn"] = rng.uniform(0, 1, wl).tolist()
    lengths = rng.integers(wl, 400, 4).tolist() + [1 if kwargs["center_windows"] else wl]
    batch = [rng.standard_normal(n).astype(np.float32) for n in lengths]
    if seed == 5:                   # (n, 1) and (1, n) are signals too
        batch = [x.reshape(-1, 1) for x in batch]
    elif seed == 7:
        batch = [x.reshape(1, -1) for x in batch]
    (out,) = run_op(lambda fn, x: fn.spectrogram(x, **kwargs), [batch], num_threads=3)
    for x, o in zip(batch, out, strict=True):
        assert_spectrum_close(o, spectrogram(x, **kwargs))


def test_layout_shapes_and_short_signals():
    x = np.arange(30, dtype=np.float32)
    out, layout = run_layouts(lambda fn, t: fn.spectrogram(t, nfft=8, window_length=8,
                                                           window_step=4, layout="tf"), [[x]])
    assert layout == "tf" and out[0].shape == (8, 5)
    # without centring, a signal a bit shorter than a window still gives one (C division)
    for n, count in [(5, 1), (7, 1), (8, 1), (12, 2), (16, 3)]:
        (o,) = run_op(lambda fn, t: fn.spectrogram(t, nfft=8, window_length=8, window_step=4,
                                                   center_windows=False),
                      [[np.ones(n, np.float32)]])
        assert o[0].shape == (5, count)


def test_long_signal():
    x = np.random.default_rng(1).standard_normal(48_000).astype(np.float32)
    (o,) = run_op(lambda fn, t: fn.spectrogram(t, window_step=160), [[x]], num_threads=4)
    assert_spectrum_close(o[0], spectrogram(x, window_step=160))


@pytest.mark.parametrize("kwargs, sample, match", [
    ({"nfft": 4, "window_length": 8}, np.ones(30, np.float32),
     r"Window length \(8\) can't be bigger than the FFT size \(4\)"),
    ({"window_length": 8, "window_fn": [1.0] * 4}, np.ones(30, np.float32),
     "`window_fn` has 4 values"),
    ({"power": 3}, np.ones(30, np.float32), "`power` can be only 1"),
    ({"layout": "xy"}, np.ones(30, np.float32), "Unexpected layout: xy"),
    ({"window_step": 0}, np.ones(30, np.float32), "Invalid window step: 0"),
    ({"window_length": 0}, np.ones(30, np.float32), "Invalid window length: 0"),
    ({"window_length": 2, "nfft": 2}, np.ones(30, np.float32), "`nfft` must be at least 3"),
    ({}, np.ones((2, 15), np.float32), "all but one dimensions must be degenerate"),
    ({}, np.zeros(0, np.float32), "does not support empty samples"),
    ({"window_length": 8, "window_step": 4, "center_windows": False}, np.ones(4, np.float32),
     r"Signal is too short \(4\)"),
    ({}, np.ones(30, np.int16), "must be float32"),
])
def test_errors(kwargs, sample, match):
    with pytest.raises(Exception, match="spectrogram") as info:
        run_op(lambda fn, t: fn.spectrogram(t, **kwargs), [[sample]])
    assert info.match(match)


@pytest.mark.parametrize("k", golden_cases("spectrogram"))
def test_golden(k):
    out, expected = run_golden(k)
    for o, e in zip(out, expected, strict=True):
        assert_spectrum_close(o, e)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {}, {"nfft": 400, "window_length": 400, "window_step": 160, "power": 1},
    {"nfft": 257, "window_length": 100, "window_step": 37, "layout": "tf",
     "reflect_padding": False},
    {"window_length": 64, "window_step": 64, "center_windows": False},
])
def test_oracle(kwargs):
    rng = np.random.default_rng(4)
    batch = [rng.standard_normal(n).astype(np.float32) for n in (4000, 513, 1, 999)]
    if not kwargs.get("center_windows", True):
        batch[2] = batch[1]

    def build(fn, x):
        return fn.spectrogram(x, **kwargs)
    for o, r in zip(run_op(build, [batch])[0], run_op(build, [batch], real=True)[0],
                    strict=True):
        assert_spectrum_close(o, r)
