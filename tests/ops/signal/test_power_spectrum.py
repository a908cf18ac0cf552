"""fn.power_spectrum: NumPy's rfft over random shapes, axes and FFT sizes, goldens, real DALI,
errors; and the FFT kernel itself over many lengths (every radix path)."""

import numpy as np
import pytest
from layout_utils import run_layouts
from pipeline_utils import run_op
from signal_utils import assert_spectrum_close, golden_cases, run_golden


def reference(x, nfft=None, axis=-1, power=2):
    axis = x.ndim - 1 if axis < 0 else axis
    return np.abs(np.fft.rfft(x.astype(np.float64), nfft, axis=axis)) ** power


@pytest.mark.parametrize("seed", range(10))
def test_random_against_numpy(seed):
    rng = np.random.default_rng(seed)
    ndim = 1 + seed % 3
    axis = int(rng.integers(-1, ndim))
    kwargs = {"axis": axis, "power": 1 + seed % 2}
    if seed % 2:
        kwargs["nfft"] = int(rng.integers(3, 80))
    batch = [rng.standard_normal(rng.integers(3, 40, ndim)).astype(np.float32)
             for _ in range(4)]
    (out,) = run_op(lambda fn, x: fn.power_spectrum(x, **kwargs), [batch], num_threads=2)
    for x, o in zip(batch, out, strict=True):
        assert_spectrum_close(o, reference(x, **kwargs))


@pytest.mark.parametrize("n", [*range(3, 40), 64, 97, 121, 125, 243, 256, 343, 1000, 1009, 4096,
                               8000, 16000, 44100])
def test_fft_lengths(n):
    x = np.random.default_rng(n).standard_normal((3, n)).astype(np.float32)
    (out,) = run_op(lambda fn, t: fn.power_spectrum(t), [[x]])
    assert_spectrum_close(out[0], reference(x), rtol=2e-5)


def test_layout_kept_and_per_sample_sizes():
    x = np.ones((4, 10), np.float32)
    out, layout = run_layouts(lambda fn, t: fn.power_spectrum(t, axis=0), [[x, x[:3]]],
                              ["ft"])
    assert layout == "ft" and [o.shape for o in out] == [(3, 10), (2, 10)]
    assert out[0][0].tolist() == [16.0] * 10


def test_the_remembered_plan_follows_the_batch_shapes():
    # the plan of a batch is kept for the next batch of the same shapes and layout only
    rng = np.random.default_rng(5)
    lengths = [(64, 64), (64, 80), (64, 64), (48, 48)]
    its = [[[rng.standard_normal(n).astype(np.float32) for n in ns]] for ns in lengths]
    outs = run_op(lambda fn, x: fn.power_spectrum(x), its, iterations=4, num_threads=2)
    for (batch,), (out,) in zip(its, outs, strict=True):
        for x, o in zip(batch, out, strict=True):
            assert_spectrum_close(o, reference(x))


@pytest.mark.parametrize("kwargs, sample, match", [
    ({"power": 3}, np.ones(8, np.float32), "`power` can be only 1"),
    ({"nfft": 2}, np.ones(8, np.float32), "`nfft` must be at least 3"),
    ({}, np.ones(2, np.float32), "must be at least 3"),
    ({"axis": 1}, np.ones(8, np.float32), r"Transform axis 1 is out of bounds \[0, 1\)"),
    ({}, np.ones(8, np.float64), "must be float32"),
])
def test_errors(kwargs, sample, match):
    with pytest.raises(Exception, match="power_spectrum") as info:
        run_op(lambda fn, t: fn.power_spectrum(t, **kwargs), [[sample]])
    assert info.match(match)


@pytest.mark.parametrize("k", golden_cases("power_spectrum"))
def test_golden(k):
    out, expected = run_golden(k)
    for o, e in zip(out, expected, strict=True):
        assert_spectrum_close(o, e)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{}, {"nfft": 64, "power": 1}, {"axis": 0, "nfft": 30}])
def test_oracle(kwargs):
    # nfft below the axis' length only on small inputs: DALI 2.4 crashes on long ones
    rng = np.random.default_rng(8)
    batch = [rng.standard_normal((n, 50)).astype(np.float32) for n in (20, 7, 64)]

    def build(fn, x):
        return fn.power_spectrum(x, **kwargs)
    for o, r in zip(run_op(build, [batch])[0], run_op(build, [batch], real=True)[0],
                    strict=True):
        assert_spectrum_close(o, r)


@pytest.mark.parametrize("shape, axis", [((300,), 0), ((7, 40), 0), ((5, 33, 3), 1)])
def test_uniform_batches(shape, axis):
    # samples of one shape lying back to back are transformed as one block of signals
    rng = np.random.default_rng(len(shape))
    batch = [rng.standard_normal(shape).astype(np.float32) for _ in range(20)]
    (out,) = run_op(lambda fn, x: fn.power_spectrum(x, axis=axis), [batch], num_threads=3)
    for x, o in zip(batch, out, strict=True):
        assert_spectrum_close(o, reference(x, axis=axis))
