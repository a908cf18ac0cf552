"""fn.nonsilent_region: a NumPy reference (exact sums) on signals whose silence is far below
the cut-off, edge cases, goldens, real DALI (whose float running sum this reproduces exactly)
and errors."""

import numpy as np
import pytest
from pipeline_utils import run_op
from signal_utils import golden_cases, run_golden


def reference(x, window_length=2048, cutoff_db=-60.0, reference_power=0.0):
    """(begin, length) with exact window sums (windows end at each sample)."""
    w = window_length
    p = np.concatenate([[0.0], np.cumsum(x.astype(np.float64) ** 2)])
    ends = np.arange(len(x))
    power = (p[ends + 1] - p[np.maximum(ends + 1 - w, 0)]) / w
    ref = reference_power or (power.max() if len(x) else 0.0)
    loud = np.nonzero(power >= 10 ** (cutoff_db / 10) * ref)[0]
    if len(loud) == 0:
        return 0, 0
    begin = max(0, loud[0] - w + 1)
    return begin, loud[-1] - begin + 1


def run(batch, **kwargs):
    begin, length = run_op(lambda fn, x: tuple(fn.nonsilent_region(x, **kwargs)), [batch],
                           num_threads=3)
    assert all(b.dtype == np.int32 and b.shape == () for b in begin + length)
    return [(int(b), int(n)) for b, n in zip(begin, length, strict=True)]


@pytest.mark.parametrize("seed", range(8))
def test_random_against_numpy(seed):
    rng = np.random.default_rng(seed)
    kwargs = {"window_length": int(rng.choice([1, 4, 32, 256])),
              "cutoff_db": float(rng.uniform(-50, -3))}
    if seed % 3 == 0:
        kwargs["reference_power"] = float(rng.uniform(0.01, 1))
    batch = []
    for _ in range(4):
        n = int(rng.integers(1, 4000))
        x = rng.standard_normal(n)
        a, b = sorted(rng.integers(0, n, 2))
        x[:a] *= 1e-6          # silence far below any cut-off used here
        x[b:] *= 1e-6
        batch.append(x.astype(np.float32))
    dtype = [np.float32, np.int16, np.int32, np.uint8][seed % 4]
    if dtype != np.float32:
        batch = [np.round(x * 100).astype(dtype) if dtype != np.uint8 else
                 np.abs(np.round(x * 100)).clip(0, 255).astype(dtype) for x in batch]
    assert run(batch, **kwargs) == [reference(x, **kwargs) for x in batch]


def test_bursts_and_edges():
    x = np.zeros(1000, np.float32)
    x[300:310] = 1
    for w, want in [(1, (300, 10)), (4, (297, 16)), (16, (285, 40)), (64, (237, 136))]:
        assert run([x], window_length=w) == [want]
    y = np.zeros(1000, np.float32)
    y[[0, 999]] = 1
    # a signal of zeros is all "loud" (0 >= 0 * reference); a short one is one window
    assert run([y, np.zeros(100, np.float32), np.ones(5, np.float32)], window_length=16) == [
        (0, 1000), (0, 100), (0, 5)]
    # a quieter spike below the cut-off, and a reference power above everything
    z = np.zeros(1000, np.float32)
    z[300], z[700] = 1.0, 0.5
    assert run([z], window_length=1, cutoff_db=-6.0) == [(300, 1)]
    assert run([z], window_length=1, cutoff_db=-60.0) == [(300, 401)]
    assert run([z], window_length=1, reference_power=1e9) == [(0, 0)]


def test_long_float_signal_resets():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(100_000).astype(np.float32)
    x[:20_000] *= 1e-5
    x[90_000:] *= 1e-5
    for reset in (8192, 2048 * 2):
        assert run([x], reset_interval=reset) == [reference(x)]
    # never recomputed, the float running sum drifts: the tail's powers (-100 dB) are lost
    # in the loud part's rounding errors, as in DALI (test_oracle)
    assert run([x], reset_interval=-1) != [reference(x)]


@pytest.mark.parametrize("kwargs, sample, match", [
    ({"window_length": 8, "reset_interval": 12}, np.ones(50, np.float32),
     "`reset_interval` shall be a multiple of `window_length`"),
    ({"window_length": 8, "reset_interval": 0}, np.ones(50, np.float32),
     "`reset_interval` shall be a multiple of `window_length`"),
    ({"window_length": 0}, np.ones(50, np.float32), "`window_length` must be positive"),
    ({}, np.ones(50, np.float64), "Unsupported input type: float64"),
    ({}, np.ones(50, np.float16), "Unsupported input type: float16"),
    ({}, np.ones((10, 2), np.float32), "must be 1-D signals"),
])
def test_errors(kwargs, sample, match):
    with pytest.raises(Exception, match="nonsilent_region") as info:
        run([sample], **kwargs)
    assert info.match(match)


@pytest.mark.parametrize("k", golden_cases("nonsilent_region"))
def test_golden(k):
    out, expected = run_golden(k)
    for o, e in zip(out, expected, strict=True):
        assert o.tolist() == e.tolist()


def _quiet_ends(rng, n):
    """A float32 signal of `n` samples whose quiet start and end sit near the cut-offs used."""
    x = rng.standard_normal(n) * rng.uniform(0.001, 1)
    a, b = sorted(rng.integers(0, n, 2))
    x[:a] *= 1e-3
    x[b:] *= 1e-4
    return x.astype(np.float32)


def _assert_as_dali(kwargs, batches, num_threads=1):
    def build(fn, x):
        return tuple(fn.nonsilent_region(x, **kwargs))
    for data in batches:
        ours = run_op(build, [data], num_threads=num_threads)
        real = run_op(build, [data], real=True)
        assert [[int(v) for v in o] for o in ours] == [[int(v) for v in r] for r in real]


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_oracle(seed):
    # quiet parts near the cut-off: the float running sum's rounding decides, as in DALI
    rng = np.random.default_rng(seed)
    kwargs = {"window_length": [1, 8, 64, 256][seed], "cutoff_db": float(rng.uniform(-80, -5))}
    if seed % 2:
        kwargs["reset_interval"] = 3 * kwargs["window_length"]
    batch = [_quiet_ends(rng, int(rng.integers(1, 3000))) for _ in range(4)]
    ints = [np.round(x * 3000).astype(np.int16) for x in batch]
    if seed == 0:
        kwargs["reset_interval"] = -1
        batch.append(np.concatenate([rng.standard_normal(50_000),
                                     1e-5 * rng.standard_normal(20_000)]).astype(np.float32))
        ints.append(ints[0])
    _assert_as_dali(kwargs, (batch, ints))


@pytest.mark.oracle
@pytest.mark.parametrize("num_threads", [1, 3])
def test_oracle_signals_in_lockstep(num_threads):
    # a work item runs up to 8 signals with their running sums side by side (a full group
    # unrolled): signals of many lengths, some shorter than the window, with resets, near the
    # cut-off where the float sums' rounding decides
    rng = np.random.default_rng(7)
    lengths = [*rng.integers(1, 3000, 30), 10, 10, 700, 700, 700, 5, 1, 2000, 2000, 2000]
    batch = [_quiet_ends(rng, int(n)) for n in lengths]
    ints = [np.round(x * 3000).astype(np.int16) for x in batch]
    _assert_as_dali({"window_length": 16, "reset_interval": 48, "cutoff_db": -40.0},
                    (batch, ints), num_threads)
