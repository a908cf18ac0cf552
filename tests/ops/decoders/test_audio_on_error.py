"""on_error="skip" of decoders.audio: the reader feeding the decoder replaces the files that
cannot be decoded (the labels stay with their waveforms), lists them in reader_meta and warns
once per epoch (the argument's checks: test_on_error.py)."""

from __future__ import annotations

import io
import warnings
import wave

import numpy as np
import pytest

from dali import fn, pipeline_def, types

pytest.importorskip("soundfile")

N = 40
BAD = {5: "garbage", 12: "empty", 13: "text", 39: "header only"}


def _wav(i):
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(np.full(100 + i, i, np.int16).tobytes())
    return buf.getvalue()


@pytest.fixture(scope="module")
def wavs(tmp_path_factory):
    root = tmp_path_factory.mktemp("wavs")
    (root / "c").mkdir()
    rng = np.random.default_rng(0)
    for i in range(N):
        data = _wav(i)
        kind = BAD.get(i)
        if kind == "garbage":
            data = bytes(rng.integers(0, 256, 500, dtype=np.uint8))
        elif kind == "empty":
            data = b""
        elif kind == "text":
            data = b"not audio"
        elif kind == "header only":
            data = data[:30]
        (root / "c" / f"{i:03d}.wav").write_bytes(data)
    return str(root)


def _pipe(wavs, **kwargs):
    @pipeline_def(batch_size=12, num_threads=2, device_id=None, seed=1)
    def pipe():
        data, _ = fn.readers.file(file_root=wavs, name="R", prefetch_queue_depth=2)
        audio, rate = fn.decoders.audio(data, **kwargs)
        return audio, rate, data.source_info()

    p = pipe()
    p.build()
    return p


def test_an_epoch_decodes_every_good_file_once(wavs):
    p = _pipe(wavs, on_error="skip", dtype=types.INT16)
    names, values = [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(4):                   # 48 samples: the 36 good ones, then 12 more
            audio, rate, si = p.run()
            names += [bytes(np.array(si[i])).decode() for i in range(len(si))]
            values += [np.array(a) for a in audio]
            assert np.array(rate.as_array()).tolist() == [8000.0] * 12
    good = [i for i in range(N) if i not in BAD]
    assert names[:len(good)] == [f"c/{i:03d}.wav" for i in good]
    for i, v in zip(good, values, strict=False):
        np.testing.assert_array_equal(v, np.full((100 + i, 1), i, np.int16))
    skipped = p.reader_meta("R")["skipped"]
    assert [s["sample"] for s in skipped][:4] == [f"c/{i:03d}.wav" for i in sorted(BAD)]
    assert [s["sample"] for s in skipped][4:] == ["c/005.wav", "c/012.wav", "c/013.wav"]
    assert all(s["reason"].startswith("dali.fn.decoders.audio: cannot decode the audio")
               for s in skipped)
    counts = [w for w in caught if "skipped in this epoch" in str(w.message)]
    assert len(counts) == 1 and "4 sample(s)" in str(counts[0].message)


def test_raise_is_the_default(wavs):
    p = _pipe(wavs)
    with pytest.raises(RuntimeError, match="cannot decode the audio: Format not recognised"):
        p.run()                              # files 0-11: 5 is garbage
