"""fn.audio_resample: against a NumPy windowed-sinc reference, DALI's goldens, real DALI, and
its errors."""
import math

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from golden_cases import case_indices, load_case
from pipeline_utils import run_op

from dali import types
from dali._ext.kernels import audio_resample as kernel

GOLDEN = "audio_resample.npz"


def reference(x, scale, lobes):
    """Output j = sum over input i of x[i] * sinc(d) * hann(d / lobes * k), d = i - j * s, with
    s input samples per output sample, in double precision without DALI's table (whose Hann
    envelope is stretched by k = 1 + 1 / (64 lobes) over the filter's support)."""
    n = len(x)
    m = math.ceil(n / scale)
    pos = np.arange(m)[:, None] * scale
    taps = np.ceil(pos) + np.arange(-lobes, lobes)[None, :]
    d = taps - pos
    k = 64 * lobes / (64 * lobes + 1)
    w = np.sinc(d) * 0.5 * (1 + np.cos(np.pi * d / lobes * k)) * (np.abs(d) < lobes)
    valid = (taps >= 0) & (taps < n)
    samples = x.reshape(n, -1)[np.clip(taps, 0, n - 1).astype(int)]
    out = np.einsum("mt,mtc->mc", w * valid, samples)
    return out.reshape((m,) + x.shape[1:])


def run(samples, real=False, **kwargs):
    return run_op(lambda fn, x: fn.audio_resample(x, **kwargs), [samples], real=real)[0]


@pytest.mark.parametrize("seed", range(6))
def test_matches_reference(seed):
    rng = np.random.default_rng(seed)
    channels = (2,) if seed % 2 else ()
    batch = [(rng.standard_normal((int(rng.integers(50, 900)),) + channels) * 0.3)
             .astype(np.float32) for _ in range(3)]
    scale = float(np.float32(rng.uniform(0.3, 3.0)))
    quality = float(rng.choice([0, 30, 50, 100]))
    lobes = round(0.007 * quality ** 2 - 0.09 * quality + 3)
    for x, y in zip(batch, run(batch, scale=scale, quality=quality), strict=True):
        assert y.dtype == np.float32 and y.shape[1:] == x.shape[1:]
        np.testing.assert_allclose(y, reference(x, 1 / scale, lobes), atol=1.5e-3)


@pytest.mark.parametrize("quality", [0.0, 30.0, 50.0, 100.0])
def test_sse_taps_equal_the_plain_loop(quality):
    # float mono signals take an SSE path for the windows inside the signal: the same float
    # operations in the same order as the plain loop, so the same bits (ends, too short
    # signals, and a tail of taps past the vectors' multiple included)
    rng = np.random.default_rng(int(quality))
    lobes = kernel.lobes_for_quality(quality)
    xs = [rng.standard_normal(n).astype(np.float32) for n in (1, 5, 40, 700, 3001)]
    scales = np.array([1.0, 0.37, 22050 / 16000, 3.1, 0.9])
    outs = []
    try:
        for on in (True, False):
            kernel.sse(on)
            dst = BatchStorage.allocate(np.float32, [(math.ceil(len(x) / s),)
                                                     for x, s in zip(xs, scales, strict=True)])
            kernel.resample_storage(None, BatchStorage.from_arrays(xs), dst, scales, lobes)
            outs.append(b"".join(x.tobytes() for x in dst.samples()))
    finally:
        kernel.sse(True)
    assert not kernel.sse(False) and outs[0] == outs[1]
    kernel.sse(True)


def test_types_are_normalized():
    x = np.array([16384, -32767, 0, 32767] * 20, np.int16)
    y, = run([x], scale=2.0, dtype=types.FLOAT)
    ref = reference(x.astype(np.float64) / 32767, 0.5, 16)
    np.testing.assert_allclose(y, ref, atol=5e-3)
    back, = run([y], scale=0.5, dtype=types.INT16, quality=0)
    assert back.dtype == np.int16 and len(back) == len(x)
    u8, = run([np.array([-1.0, 0.5, 2.0, 0.0], np.float32)], out_length=4, dtype=types.UINT8)
    assert u8.dtype == np.uint8 and u8[0] == 0 and u8[2] == 255


def test_lengths_and_layout():
    x = np.zeros((2000, 2), np.float32)
    (y,), = [run_op(lambda fn, a: fn.audio_resample(a, scale=1.7), [[x]], layouts=["TC"])[0]]
    assert y.shape == (3401, 2)          # 1.7 is 1.70000005 as DALI's float argument
    assert run([x], in_rate=3.0, out_rate=1.0)[0].shape == (667, 2)
    assert run([x], out_length=5)[0].shape == (5, 2)
    assert run([x], scale=0.0)[0].shape == (0, 2)
    out = run_op(lambda fn, a: fn.audio_resample(a, scale=2.0), [[x[:, 0]]], layouts=["T"])
    assert out[0][0].shape == (4000,)


def test_per_sample_scale():
    batch = [np.ones(100, np.float32), np.ones(60, np.float32)]
    out = run_op(lambda fn, x, s: fn.audio_resample(x, scale=s),
                 [batch, [np.float32(2.0), np.float32(0.5)]])[0]
    assert [o.shape for o in out] == [(200,), (30,)]


@pytest.mark.parametrize("k", case_indices(GOLDEN))
def test_goldens(k):
    _, args, _, batch, expected = load_case(GOLDEN, k, 2, ("dtype",))
    for y, ref in zip(run(batch, **args), expected, strict=True):
        assert y.shape == ref.shape and y.dtype == ref.dtype
        tol = 5e-6 if ref.dtype == np.float32 else 1 if ref.dtype == np.int16 else 2048
        np.testing.assert_allclose(y.astype(np.float64), ref.astype(np.float64), atol=tol,
                                   rtol=0)


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_oracle(seed):
    real_types = pytest.importorskip("nvidia.dali.types")
    rng = np.random.default_rng(100 + seed)
    dtype = [np.float32, np.int16, np.int32, np.uint16][seed]
    if dtype == np.float32:
        batch = [(rng.standard_normal((int(rng.integers(1, 2000)), 2)) * 0.4).astype(dtype)
                 for _ in range(3)]
    else:
        info = np.iinfo(dtype)
        batch = [rng.integers(info.min, info.max, (int(rng.integers(1, 2000)), 2),
                              endpoint=True).astype(dtype) for _ in range(3)]
    kwargs = {"scale": float(rng.uniform(0.2, 3)), "quality": float(rng.uniform(0, 100))}
    ours = run(batch, dtype=types.FLOAT, **kwargs)
    theirs = run(batch, real=True, dtype=real_types.FLOAT, **kwargs)
    for a, b in zip(ours, theirs, strict=True):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, atol=5e-6)


@pytest.mark.parametrize("kwargs, message", [
    ({}, "No resampling factor specified"),
    ({"in_rate": 2.0}, "``in_rate`` and ``out_rate`` must be specified together"),
    ({"in_rate": 2.0, "out_rate": 1.0, "scale": 1.0}, "cannot be used together"),
    ({"scale": 1.0, "out_length": 3}, "cannot be used together"),
    ({"scale": 2.0, "quality": 101}, "``quality`` out of range: 101"),
    ({"scale": 2.0, "dtype": types.FLOAT64}, "Unsupported output type: float64"),
    ({"scale": -1.0}, "The scaling factor must be non-negative. Got scale == -1"),
    ({"in_rate": 0.0, "out_rate": 1.0}, "Input sampling rates must be positive"),
    ({"in_rate": 1.0, "out_rate": -1.0}, "Output sampling rates must be non-negative"),
])
def test_errors(kwargs, message):
    with pytest.raises(RuntimeError, match="audio_resample") as info:
        run([np.zeros(8, np.float32)], **kwargs)
    assert message in str(info.value)


@pytest.mark.parametrize("x, message", [
    (np.zeros((2, 2, 2), np.float32), "only time series data"),
    (np.zeros(8, np.float64), "Unsupported output type: float64"),
])
def test_input_errors(x, message):
    with pytest.raises(RuntimeError, match="audio_resample") as info:
        run([x], scale=2.0)
    assert message in str(info.value)


def test_experimental_alias_warns():
    x = np.ones(10, np.float32)
    with pytest.warns(DeprecationWarning, match="audio_resample"):
        out = run_op(lambda fn, a: fn.experimental.audio_resample(a, scale=2.0), [[x]])[0]
    assert out[0].shape == (20,)
