"""fn.decoders.audio (and fn.audio_decoder): WAV written with the `wave` module, FLAC and OGG
with soundfile; values against the written samples and libsndfile's conversions, resampling
against real DALI's, errors naming the sample."""
import io
import sys
import wave

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import types

sf = pytest.importorskip("soundfile")


def wav_bytes(samples, rate):
    """A 16-bit PCM WAV file of int16 `samples` (length, channels), by the `wave` module."""
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(samples.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())
    return np.frombuffer(buf.getvalue(), np.uint8)


def sf_bytes(samples, rate, fmt, subtype=None):
    buf = io.BytesIO()
    sf.write(buf, samples, rate, format=fmt, subtype=subtype)
    return np.frombuffer(buf.getvalue(), np.uint8)


def pcm(rng, length, channels):
    return (rng.standard_normal((length, channels)) * 4000).clip(-32768, 32767).astype(np.int16)


def decode(files, real=False, **kwargs):
    return run_op(lambda fn, x: tuple(fn.decoders.audio(x, **kwargs)), [files], real=real)


@pytest.mark.parametrize("seed", range(4))
def test_pcm_values_and_types(seed):
    rng = np.random.default_rng(seed)
    data = [pcm(rng, int(rng.integers(1, 3000)), int(rng.integers(1, 4))) for _ in range(3)]
    rates = [8000, 16000, 44100]
    files = [wav_bytes(data[0], rates[0]), sf_bytes(data[1], rates[1], "FLAC"),
             sf_bytes(data[2], rates[2], "WAV", "PCM_16")]
    audio, sr = decode(files)
    for x, y, r, rate in zip(data, audio, sr, rates, strict=True):
        assert y.dtype == np.float32 and y.shape == x.shape
        np.testing.assert_array_equal(y, x / np.float32(32768))
        assert r.dtype == np.float32 and r.shape == () and r == rate
    (i16, _), (i32, _) = decode(files, dtype=types.INT16), decode(files, dtype=types.INT32)
    for x, a, b in zip(data, i16, i32, strict=True):
        np.testing.assert_array_equal(a, x)
        np.testing.assert_array_equal(b, x.astype(np.int32) << 16)


def test_downmix():
    rng = np.random.default_rng(3)
    stereo, mono = pcm(rng, 500, 2), pcm(rng, 300, 1)
    (a, b), _ = decode([wav_bytes(stereo, 16000), wav_bytes(mono, 16000)], downmix=True)
    assert a.shape == (500,) and b.shape == (300,)
    np.testing.assert_allclose(a, stereo.mean(axis=1) / 32768, atol=1e-7)
    np.testing.assert_array_equal(b, mono[:, 0] / np.float32(32768))
    (c, _), _ = decode([wav_bytes(stereo, 16000), wav_bytes(mono, 16000)], downmix=True,
                       dtype=types.INT16)
    ref = np.rint(stereo.mean(axis=1) / 32768 * 32767)
    np.testing.assert_allclose(c, ref, atol=1)
    assert c.dtype == np.int16


def test_resample_lengths_and_rates():
    rng = np.random.default_rng(4)
    files = [wav_bytes(pcm(rng, 1000, 2), 16000), sf_bytes(pcm(rng, 1000, 1), 22050, "FLAC"),
             wav_bytes(pcm(rng, 10, 1), 8000)]
    audio, sr = decode(files, sample_rate=8000.0)
    assert [a.shape for a in audio] == [(500, 2), (363, 1), (10, 1)]
    assert [float(r) for r in sr] == [8000.0] * 3


def test_per_sample_rate():
    rng = np.random.default_rng(5)
    files = [wav_bytes(pcm(rng, 800, 1), 16000)] * 2
    audio, sr = run_op(lambda fn, x, r: tuple(fn.decoders.audio(x, sample_rate=r)),
                       [files, [np.float32(8000), np.float32(32000)]])
    assert [a.shape for a in audio] == [(400, 1), (1600, 1)]
    assert [float(r) for r in sr] == [8000.0, 32000.0]


def test_ogg_vorbis():
    t = np.arange(8000) / 16000
    x = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    (y,), (r,) = decode([sf_bytes(x, 16000, "OGG", "VORBIS")])
    assert y.shape == (8000, 1) and r == 16000
    assert np.abs(y[:, 0] - x).max() < 0.05       # lossy


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {}, {"downmix": True}, {"sample_rate": 8000.0}, {"sample_rate": 44100.0, "quality": 80},
    {"sample_rate": 16000.0, "downmix": True, "dtype": "INT16"}, {"dtype": "INT32"},
])
def test_oracle(kwargs):
    real_types = pytest.importorskip("nvidia.dali.types")
    rng = np.random.default_rng(6)
    files = [wav_bytes(pcm(rng, 1200, 2), 16000), sf_bytes(pcm(rng, 900, 2), 22050, "FLAC"),
             wav_bytes(pcm(rng, 700, 1), 48000), sf_bytes(pcm(rng, 333, 3), 8000, "FLAC")]
    ours_kw, real_kw = dict(kwargs), dict(kwargs)
    if "dtype" in kwargs:
        ours_kw["dtype"] = getattr(types, kwargs["dtype"])
        real_kw["dtype"] = getattr(real_types, kwargs["dtype"])
    ours, theirs = decode(files, **ours_kw), decode(files, real=True, **real_kw)
    for a, b in zip(ours[0], theirs[0], strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype
        tol = 1e-6 if a.dtype == np.float32 else 1 if a.dtype == np.int16 else 256
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), atol=tol, rtol=0)
    for a, b in zip(ours[1], theirs[1], strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape and a == b


def test_corrupt_and_truncated_files_name_the_sample():
    rng = np.random.default_rng(7)
    good = wav_bytes(pcm(rng, 100, 1), 16000)
    with pytest.raises(RuntimeError, match=r"decoders\.audio.*cannot decode the audio") as info:
        decode([good, np.frombuffer(b"not an audio file at all", np.uint8)])
    assert "sample 1" in str(info.value)
    flac = sf_bytes(pcm(rng, 20000, 1), 16000, "FLAC")
    with pytest.raises(RuntimeError, match=r"decoders\.audio") as info:
        decode([flac[:len(flac) // 2]])
    assert "sample 0" in str(info.value)


def test_bad_arguments():
    files = [wav_bytes(np.zeros((10, 1), np.int16), 16000)]
    with pytest.raises(RuntimeError, match=r"decoders\.audio.*Unsupported output type"):
        decode(files, dtype=types.UINT8)
    with pytest.raises(RuntimeError, match=r"decoders\.audio.*``quality`` out of range"):
        decode(files, quality=120.0)
    with pytest.raises(RuntimeError, match=r"decoders\.audio.*uint8"):
        run_op(lambda fn, x: tuple(fn.decoders.audio(x)), [[np.zeros(10, np.float32)]])


def test_legacy_name_warns():
    files = [wav_bytes(np.ones((10, 2), np.int16), 16000)]
    with pytest.warns(DeprecationWarning, match="audio_decoder"):
        (y,), _ = run_op(lambda fn, x: tuple(fn.audio_decoder(x, downmix=True)), [files])
    assert y.shape == (10,)


def test_without_soundfile_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "soundfile", None)
    with pytest.raises(ImportError, match=r"decoders\.audio.*dali\[audio\]"):
        decode([wav_bytes(np.zeros((4, 1), np.int16), 16000)])
