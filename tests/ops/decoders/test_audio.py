"""fn.decoders.audio (and fn.audio_decoder): WAV written with the `wave` module, FLAC and OGG
with soundfile; values against the written samples and libsndfile's conversions, resampling
against real DALI's, errors naming the sample.  FLAC decoded by libFLAC directly: bit for bit
libsndfile's reading (every bit depth, channel count, block size and subframe kind), and
corrupt files as libsndfile reads them."""
import io
import sys
import wave

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import types
from dali._ext.kernels import audio_decode
from dali.ops.audio import _decoding

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


def test_a_header_claiming_more_frames_than_the_file_holds_is_refused_before_allocation():
    rng = np.random.default_rng(8)
    flac = bytearray(sf_bytes(pcm(rng, 5000, 2), 16000, "FLAC").tobytes())
    # STREAMINFO's 36-bit total-samples field: bits 28..63 of the 8 bytes from offset 18
    v = int.from_bytes(flac[18:26], "big")
    flac[18:26] = ((v & ~((1 << 36) - 1)) | (1 << 33)).to_bytes(8, "big")
    # 2^33 stereo frames would take 64 GiB: counted before any of it is allocated (the
    # pool's "cannot allocate" MemoryError otherwise)
    with pytest.raises(RuntimeError, match=r"the file is truncated: \d+ of 8589934592 "
                                           "frames read") as info:
        decode([np.frombuffer(bytes(flac), np.uint8)])
    assert "sample 0" in str(info.value)


def test_a_long_silence_compressed_beyond_the_trusted_ratio_decodes(monkeypatch):
    monkeypatch.setattr(_decoding, "TRUSTED_BYTES", 1 << 20)    # as a 64 MiB silence would
    counted = []
    frames_in = _decoding._frames_in
    silence = sf_bytes(np.zeros((400000, 1), np.int16), 16000, "FLAC")
    # only this file's counts: a pipeline of an earlier test may still be reading ahead
    monkeypatch.setattr(_decoding, "_frames_in", lambda blob, most: (
        len(blob) == len(silence) and counted.append(most)) or frames_in(blob, most))
    assert 400000 * 4 > 1024 * silence.size                     # beyond the trusted ratio
    out, rate = decode([silence], dtype=types.INT16)
    assert counted and set(counted) == {400000}            # counted, found whole
    assert out[0].shape == (400000, 1) and not out[0].any()


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


class _Op:
    class spec:
        display_name = "test"


@pytest.fixture(scope="module")
def apis():
    """(libsndfile with the libFLAC decoder's functions, libsndfile alone)."""
    api = _decoding.libsndfile(_Op)
    if not api.has_flac:
        pytest.skip("the soundfile library has no symbol table to find libFLAC's functions in")
    plain = audio_decode.Sndfile({name: int(sf._ffi.cast("uintptr_t", getattr(sf._snd, name)))
                                  for name in audio_decode.FUNCTIONS})
    assert not plain.has_flac
    return api, plain


def decode_with(api, blob, dtype=np.float32, rate=0.0, downmix=False):
    """The decoded sample, or the DecodeError's message."""
    try:
        opened = _decoding.open_batch(api, None, [blob], np.float32([rate]), downmix)
        out = [np.empty(tuple(opened.shapes[0]), dtype)]
        _decoding.decode_batch(None, opened, out, 16)
    except _decoding.DecodeError as e:
        return str(e)
    return out[0]


def flac_signal(kind, length, channels, subtype, rng):
    """Float samples whose FLAC subframes are mostly of one kind: "silence" and "dc" give
    constant subframes, "noise" (full scale) verbatim ones, "tone" fixed or LPC ones."""
    bits = {"PCM_S8": 8, "PCM_16": 16, "PCM_24": 24}[subtype]
    scale = 2.0 ** (bits - 1)
    if kind == "silence":
        x = np.zeros((length, channels))
    elif kind == "dc":
        x = np.full((length, channels), 0.25)
    elif kind == "noise":
        x = rng.uniform(-1, 1, (length, channels))
    else:
        t = np.arange(length)[:, None] / 16000
        x = 0.5 * np.sin(2 * np.pi * (220 + 110 * np.arange(channels)) * t) + \
            0.01 * rng.standard_normal((length, channels))
    return np.round(x * (scale - 1)) / scale


@pytest.mark.parametrize("subtype", ["PCM_S8", "PCM_16", "PCM_24"])
@pytest.mark.parametrize("kind", ["silence", "dc", "noise", "tone"])
@pytest.mark.parametrize("level", [0.0, 0.5, 1.0])
def test_flac_bit_exact_with_libsndfile(apis, subtype, kind, level):
    rng = np.random.default_rng(abs(hash((subtype, kind, level))) % 2**32)
    api, plain = apis
    for channels, length in ((1, 1), (2, 1152), (3, 4097), (5, 9000), (8, 2500)):
        x = flac_signal(kind, length, channels, subtype, rng)
        buf = io.BytesIO()
        sf.write(buf, x, 16000, format="FLAC", subtype=subtype, compression_level=level)
        blob = np.frombuffer(buf.getvalue(), np.uint8)
        for dtype in (np.int16, np.int32, np.float32):
            ref = sf.read(io.BytesIO(buf.getvalue()), dtype=np.dtype(dtype).name,
                          always_2d=True)[0]
            got = decode_with(api, blob, dtype)
            assert got.dtype == ref.dtype and got.shape == ref.shape
            assert got.tobytes() == ref.tobytes(), (channels, length, dtype)
        for kwargs in ({"downmix": True}, {"rate": 12000.0}, {"rate": 8000.0, "downmix": True}):
            got, want = decode_with(api, blob, **kwargs), decode_with(plain, blob, **kwargs)
            assert got.tobytes() == want.tobytes() and got.shape == want.shape, kwargs


def test_corrupt_flac_reads_as_libsndfile_reads_it(apis):
    api, plain = apis
    rng = np.random.default_rng(8)
    good = sf_bytes(pcm(rng, 20000, 2), 16000, "FLAC")
    cases = [good[:len(good) // 2], good[:-3], np.concatenate([good, np.uint8([1, 2, 3] * 50)])]
    for at in (len(good) // 3, len(good) // 2, len(good) - 20):
        bad = good.copy()
        bad[at:at + 8] ^= 0x5A
        cases.append(bad)
    for blob in cases:
        for dtype in (np.int16, np.float32):
            got, want = decode_with(api, blob, dtype), decode_with(plain, blob, dtype)
            if isinstance(want, str):
                assert got == want
            else:
                assert got.tobytes() == want.tobytes()


def _streaminfo_edited(blob, keep, value):
    """`blob` (a FLAC file) with the STREAMINFO bits outside mask `keep` of its 64-bit field at
    byte 18 (sample rate 20 bits, channels - 1 3 bits, bits per sample - 1 5 bits, total
    samples 36 bits) set to `value`."""
    out = bytearray(blob.tobytes())
    v = int.from_bytes(out[18:26], "big")
    out[18:26] = ((v & keep) | value).to_bytes(8, "big")
    return np.frombuffer(bytes(out), np.uint8)


def test_flac_headers_read_as_libsndfile_reads_them(apis):
    # a FLAC header is read here, the file opened by libsndfile only where libFLAC cannot
    # decode it: the same lengths, rates and channels as libsndfile's open gives, and where a
    # header is one this reading leaves to libsndfile (a rate of 0, no length, 12 bits), the
    # same values or errors
    api, plain = apis
    rng = np.random.default_rng(9)
    blobs = [sf_bytes(pcm(rng, n, c) >> shift, rate, "FLAC", subtype)
             for n, c, rate, subtype, shift in ((1, 1, 8000, "PCM_S8", 8),
                                                (4097, 2, 44100, "PCM_16", 0),
                                                (3000, 6, 96000, "PCM_24", 0),
                                                (20000, 1, 16000, "PCM_16", 0))]
    rate, total, bits = 0xFFFFF << 44, (1 << 36) - 1, 0x1F << 36
    blobs += [_streaminfo_edited(blobs[3], ~rate, 0),
              _streaminfo_edited(blobs[3], ~total, 0),
              _streaminfo_edited(blobs[3], ~bits, 11 << 36),
              np.concatenate([np.frombuffer(b"ID3", np.uint8), blobs[1]])]
    for k, blob in enumerate(blobs):
        ours, theirs = audio_decode.open_files(None, api, [blob]), \
            audio_decode.open_files(None, plain, [blob])
        assert ours.errors() == theirs.errors(), k
        for field in ("frames", "rates", "channels"):
            assert getattr(ours, field).tolist() == getattr(theirs, field).tolist(), (k, field)
        for dtype in (np.int16, np.float32):
            got, want = decode_with(api, blob, dtype), decode_with(plain, blob, dtype)
            assert type(got) is type(want), k
            assert got == want if isinstance(want, str) else got.tobytes() == want.tobytes()
