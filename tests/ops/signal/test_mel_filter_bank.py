"""fn.mel_filter_bank: a NumPy filter bank over random bin counts, filters, ranges, formulas and
layouts; goldens, real DALI and DALI's errors."""

import numpy as np
import pytest
from layout_utils import run_layouts
from pipeline_utils import run_op
from signal_utils import assert_spectrum_close, golden_cases, mel_bank, run_golden


@pytest.mark.parametrize("seed", range(10))
def test_random_against_numpy(seed):
    rng = np.random.default_rng(seed)
    nbins = int(rng.integers(2, 300))
    sr = float(rng.choice([8000.0, 16000.0, 22050.0, 44100.0]))
    kwargs = {"nfilter": int(rng.integers(1, 80)), "sample_rate": sr,
              "mel_formula": ["slaney", "htk"][seed % 2], "normalize": seed % 3 != 0}
    if seed % 4 == 1:
        kwargs["freq_low"] = float(rng.uniform(0, sr / 4))
        kwargs["freq_high"] = float(rng.uniform(sr / 4 + 1, sr / 2))
    layout = ["ft", "tf", "", "cft"][seed % 4]
    axis = {"ft": 0, "tf": 1, "": 0, "cft": 1}[layout]
    shapes = [[nbins, int(rng.integers(0, 30))] for _ in range(3)]
    if layout == "tf":
        shapes = [s[::-1] for s in shapes]
    if layout == "cft":
        shapes = [[2, *s] for s in shapes]
    batch = [rng.random(s).astype(np.float32) for s in shapes]
    out, out_layout = run_layouts(lambda fn, x: fn.mel_filter_bank(x, **kwargs), [batch],
                                  [layout or None], num_threads=3)
    bank = mel_bank(nbins, **kwargs)
    assert out_layout == layout
    for x, o in zip(batch, out, strict=True):
        ref = np.moveaxis(np.tensordot(bank, np.moveaxis(x, axis, 0), axes=1), 0, axis)
        assert_spectrum_close(o, ref, rtol=1e-5)


def test_default_axes_without_layout():
    rng = np.random.default_rng(1)
    bank = mel_bank(33, nfilter=5, sample_rate=8000.0)
    for shape, axis in [((33,), 0), ((33, 4), 0), ((2, 33, 4), 1)]:
        x = rng.random(shape).astype(np.float32)
        (o,) = run_op(lambda fn, t: fn.mel_filter_bank(t, nfilter=5, sample_rate=8000.0), [[x]])
        ref = np.moveaxis(np.tensordot(bank, np.moveaxis(x, axis, 0), axes=1), 0, axis)
        assert_spectrum_close(o[0], ref, rtol=1e-5)


def test_varying_bin_counts_in_a_batch():
    rng = np.random.default_rng(2)
    batch = [rng.random((n, 3)).astype(np.float32) for n in (65, 129, 65)]
    (out,) = run_op(lambda fn, t: fn.mel_filter_bank(t, nfilter=16), [batch])
    for x, o in zip(batch, out, strict=True):
        assert_spectrum_close(o, mel_bank(x.shape[0], nfilter=16) @ x, rtol=1e-5)


def test_plan_follows_the_shapes_from_batch_to_batch():
    """The plan is kept for a repeated batch of shapes and remade when they change (and
    change back)."""
    rng = np.random.default_rng(3)
    iterations = [[[rng.random(s).astype(np.float32) for s in shapes]]
                  for shapes in ([(65, 3), (65, 3)], [(129, 2), (65, 4)], [(65, 3), (65, 3)],
                                 [(65, 3), (65, 3)])]
    got = run_op(lambda fn, t: fn.mel_filter_bank(t, nfilter=16), iterations,
                 iterations=len(iterations))
    for (batch,), (out,) in zip(iterations, got, strict=True):
        for x, o in zip(batch, out, strict=True):
            assert_spectrum_close(o, mel_bank(x.shape[0], nfilter=16) @ x, rtol=1e-5)


@pytest.mark.parametrize("kwargs, layout, sample, match", [
    ({}, "xy", np.ones((4, 4), np.float32), "'f' axis not present in the layout. Got: `xy`"),
    ({}, "ft", np.ones((4, 4), np.float64), "Unsupported data type"),
    ({"freq_low": 5000.0, "freq_high": 4000.0}, "ft", np.ones((4, 4), np.float32),
     "freq_high should be within the range"),
    ({"freq_low": -1.0}, "ft", np.ones((4, 4), np.float32), "freq_low should be >= 0"),
    ({"nfilter": 0}, "ft", np.ones((4, 4), np.float32), "number of filters should be > 0"),
    ({"mel_formula": "foo"}, "ft", np.ones((4, 4), np.float32),
     'Unsupported mel_formula value "foo"'),
    ({"sample_rate": 0.0}, "ft", np.ones((4, 4), np.float32), "sample rate should be > 0"),
])
def test_errors(kwargs, layout, sample, match):
    with pytest.raises(Exception, match="mel_filter_bank") as info:
        run_op(lambda fn, t: fn.mel_filter_bank(t, **kwargs), [[sample]], layouts=[layout])
    assert info.match(match)


@pytest.mark.parametrize("k", golden_cases("mel_filter_bank"))
def test_golden(k):
    out, expected = run_golden(k)
    for o, e in zip(out, expected, strict=True):
        assert_spectrum_close(o, e, rtol=1e-5)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {}, {"nfilter": 40, "sample_rate": 16000.0, "freq_low": 300.0, "freq_high": 4000.0},
    # (not above sample_rate / 2: DALI 2.4 then reads past the last bin)
    {"nfilter": 64, "mel_formula": "htk", "normalize": False, "freq_high": 20000.0},
])
def test_oracle(kwargs):
    rng = np.random.default_rng(6)
    batch = [rng.random((257, n)).astype(np.float32) for n in (10, 1, 0)]

    def build(fn, x):
        return fn.mel_filter_bank(x, **kwargs)
    ours = run_op(build, [batch], layouts=["ft"])[0]
    real = run_op(build, [batch], layouts=["ft"], real=True)[0]
    for o, r in zip(ours, real, strict=True):
        assert_spectrum_close(o, r, rtol=1e-5)
