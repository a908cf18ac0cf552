"""fn.readers.nemo_asr (and fn.nemo_asr_reader): NeMo manifests of WAV (written with the
`wave` module) and FLAC files; audio against the written samples, texts, indices, rates,
offset/duration windows, duration limits, sample order against real DALI, on_error."""
import json
import pathlib
import warnings
import wave

import numpy as np
import pytest

from dali import fn, pipeline_def, types

sf = pytest.importorskip("soundfile")


def write_wav(path, samples, rate):
    with wave.open(str(path), "wb") as w:
        w.setnchannels(samples.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """Two manifests over 12 files (WAV and FLAC, mono and stereo, 8 and 16 kHz)."""
    root = tmp_path_factory.mktemp("nemo")
    rng = np.random.default_rng(0)
    signals, entries = [], []
    for i in range(12):
        rate = 8000 if i % 4 == 0 else 16000
        x = (rng.standard_normal((400 + 97 * i, 1 + i % 2)) * 3000).astype(np.int16)
        path = root / (f"{i:02d}.flac" if i % 3 == 0 else f"{i:02d}.wav")
        if path.suffix == ".wav":
            write_wav(path, x, rate)
        else:
            sf.write(path, x, rate)
        entry = {"audio_filepath": str(path), "duration": len(x) / rate}
        if i != 4:
            entry["text"] = f"Utterance number {i} ünïcode"
        signals.append((x, rate))
        entries.append(entry)
    manifests = []
    for k, part in enumerate((entries[:7], entries[7:])):
        m = root / f"manifest{k}.json"
        m.write_text("\n".join(json.dumps(e) for e in part) + "\n\n")
        manifests.append(str(m))
    return manifests, signals, entries


def run(manifests, batch_size=4, iterations=1, **kwargs):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=5)
    def pipe():
        out = fn.readers.nemo_asr(manifest_filepaths=manifests, **kwargs)
        return tuple(out) if isinstance(out, list) else out
    p = pipe()
    p.build()
    return [[[np.array(t) for t in out] for out in p.run()] for _ in range(iterations)]


def test_outputs(dataset):
    manifests, signals, entries = dataset
    batches = run(manifests, batch_size=4, iterations=3, read_idxs=True)
    k = 0
    for audio, rates, texts, idxs in batches:
        for a, r, t, idx in zip(audio, rates, texts, idxs, strict=True):
            x, rate = signals[k]
            assert a.dtype == np.float32 and a.shape == (len(x),)
            np.testing.assert_allclose(a, x.mean(axis=1) / 32768, atol=1e-7)
            assert r.dtype == np.float32 and r.shape == () and r == rate
            assert t.dtype == np.uint8
            assert bytes(t).decode() == entries[k].get("text", "")
            assert idx.dtype == np.int64 and idx.shape == (1,) and idx[0] == (k if k < 7
                                                                              else k - 7)
            k += 1


def test_output_selection_types_and_channels(dataset):
    manifests, signals, _ = dataset
    (out,) = run(manifests, batch_size=2, read_sample_rate=False, read_text=False,
                 downmix=False, dtype=types.INT16)
    assert len(out) == 1
    for a, (x, _) in zip(out[0], signals, strict=False):
        np.testing.assert_array_equal(a, x)
    (out,) = run(manifests, batch_size=2, read_text=False, dtype=types.INT32)
    assert len(out) == 2 and out[0][0].dtype == np.int32


def test_resampling_keeps_the_files_rate(dataset):
    manifests, signals, _ = dataset
    (audio, rates, _), = run(manifests, batch_size=4, sample_rate=16000.0)
    for a, r, (x, rate) in zip(audio, rates, signals, strict=False):
        assert r == rate                             # DALI reports the file's rate
        assert a.shape == (int(np.ceil(len(x) * 16000 / rate)),)


def test_durations_and_windows(tmp_path, dataset):
    _, signals, entries = dataset
    x, rate = signals[1]                             # stereo, 16 kHz
    lines = [{"audio_filepath": entries[1]["audio_filepath"], "offset": 0.01003,
              "duration": 0.02003},
             {"audio_filepath": entries[1]["audio_filepath"], "offset": 0.005},
             {"audio_filepath": entries[1]["audio_filepath"], "duration": 0.0200999}]
    m = tmp_path / "windows.json"
    m.write_text("\n".join(json.dumps(e) for e in lines))
    (audio, _, _), = run([str(m)], batch_size=3)
    mono = x.mean(axis=1) / 32768
    for a, (start, count) in zip(audio, [(160, 320), (80, len(x) - 80), (0, 321)], strict=True):
        np.testing.assert_allclose(a, mono[start:start + count], atol=1e-7)
    kept = run(dataset[0], batch_size=3, min_duration=0.06, max_duration=0.08,
               read_idxs=True)[0]
    expect = [i for i, e in enumerate(entries) if 0.06 <= e["duration"] <= 0.08]
    assert [len(a) for a in kept[0]] == [len(signals[i][0]) for i in expect[:3]]


def test_window_beyond_the_file_names_it(tmp_path, dataset):
    m = tmp_path / "bad.json"
    m.write_text(json.dumps({"audio_filepath": dataset[2][0]["audio_filepath"],
                             "offset": 10.0}))
    with pytest.raises(RuntimeError, match=r"nemo_asr.*00\.flac.*offset"):
        run([str(m)], batch_size=1)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {}, {"random_shuffle": True, "initial_fill": 5}, {"num_shards": 3, "shard_id": 2},
    {"random_shuffle": True, "num_shards": 2, "shard_id": 1, "pad_last_batch": True},
    {"shuffle_after_epoch": True}, {"sample_rate": 11025.0, "downmix": False},
    {"min_duration": 0.05, "max_duration": 0.09},
])
def test_oracle(dataset, kwargs):
    pytest.importorskip("nvidia.dali")
    from nvidia.dali import fn as real_fn
    from nvidia.dali import pipeline_def as real_pipeline_def

    @real_pipeline_def(batch_size=3, num_threads=2, device_id=None, seed=5)
    def real():
        return tuple(real_fn.readers.nemo_asr(manifest_filepaths=dataset[0], read_idxs=True,
                                              **kwargs))
    p = real()
    p.build()
    theirs = [[[np.array(t) for t in out] for out in p.run()] for _ in range(9)]
    ours = run(dataset[0], batch_size=3, iterations=9, read_idxs=True, **kwargs)
    for a, b in zip(ours, theirs, strict=True):
        for x, y in zip(a, b, strict=True):
            for s, t in zip(x, y, strict=True):
                assert s.shape == t.shape and s.dtype == t.dtype
                np.testing.assert_allclose(s.astype(np.float64), t, atol=1e-6)


def test_on_error(tmp_path, dataset):
    lines = [json.loads(line) for line in pathlib.Path(dataset[0][0]).read_text().split("\n")
             if line]
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"RIFF0000WAVEnot really")
    lines.insert(2, {"audio_filepath": str(bad), "text": "bad"})
    lines.insert(4, {"audio_filepath": str(tmp_path / "missing.wav")})
    m = tmp_path / "m.json"
    m.write_text("\n".join(json.dumps(e) for e in lines))
    with pytest.raises(RuntimeError, match=r"nemo_asr.*bad\.wav"):
        run([str(m)], batch_size=4)

    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe():
        return tuple(fn.readers.nemo_asr(manifest_filepaths=[str(m)], on_error="skip",
                                         name="R"))
    p = pipe()
    p.build()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        texts = [bytes(np.array(t)).decode() for _ in range(3) for t in p.run()[2]]
    assert "bad" not in texts and len(texts) == 9
    skipped = {s["sample"] for s in p.reader_meta()["R"]["skipped"]}
    assert skipped == {str(bad), str(tmp_path / "missing.wav")}


@pytest.mark.parametrize("text, match", [
    ("{not json", "not a JSON object"),
    ('{"text": "no path"}', 'needs an "audio_filepath"'),
    ('{"audio_filepath": "a.wav", "duration": "long"}', '"duration" must be a number'),
])
def test_bad_manifests(tmp_path, text, match):
    m = tmp_path / "m.json"
    m.write_text(text + "\n")
    with pytest.raises(RuntimeError, match=match):
        run([str(m)], batch_size=1)


def test_missing_manifest_and_bad_dtype(tmp_path, dataset):
    with pytest.raises(RuntimeError, match="Could not open NEMO ASR manifest"):
        run([str(tmp_path / "none.json")], batch_size=1)
    with pytest.raises(RuntimeError, match=r"nemo_asr.*Unsupported output type"):
        run(dataset[0], batch_size=1, dtype=types.UINT8)


def test_legacy_name_warns(dataset):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return tuple(fn.nemo_asr_reader(manifest_filepaths=dataset[0], read_text=False))
    with pytest.warns(DeprecationWarning, match="nemo_asr_reader"):
        p = pipe()
        p.build()
    audio, rates = p.run()
    assert len(audio) == 2 and float(np.array(rates[0])) == 8000


def test_read_ahead(dataset):
    manifests = dataset[0]
    (a, _, _), = run(manifests, batch_size=3, read_ahead=True)
    (b, _, _), = run(manifests, batch_size=3)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
