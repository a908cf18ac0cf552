"""The speech recognition training pipeline (issue #14: Jasper/QuartzNet on NeMo, as DALI's
Jasper example builds it, on CPU) as a benchmark graph written once against `(fn, types)`, so
the same code builds dali's and real DALI's pipeline.

readers.nemo_asr (16 kHz, mono, float, shuffled) -> nonsilent_region (-60 dB) -> slice ->
dither (random.normal * 1e-5) -> preemphasis_filter (0.97) -> spectrogram (512-point FFT,
20 ms Hann windows every 10 ms) -> mel_filter_bank (64 bands) -> to_decibels (natural log,
floor 1e-20) -> normalize (per band) -> pad (frames to a multiple of 16); outputs the
features, their unpadded shape and the manifest index.  The data set: 256 WAV and FLAC files
of 2 to 15 s of speech-like sound (a gliding voiced pitch with harmonics under syllable
envelopes, noise, silence at both ends) and their manifest, written to a temporary directory.

Where dali lacks one of the signal operators, both backends run the graph without that stage
(`stages`), and the table names the stages left out.

    python -m bench.speech               # both backends, interleaved repeats
"""

from __future__ import annotations

import json
import math
import pathlib
import tempfile

import numpy as np

from bench import backends, measure, pipelines

TARGET = 1.5             # the throughput ratio dali / real DALI issue #14 aims at
NUM_FILES = 256
RATE = 16000
NFFT, WINDOW, STRIDE, NFEATURES, PAD_ALIGN = 512, 0.02, 0.01, 64, 16
STAGES = ("nonsilent_region", "random.normal", "preemphasis_filter", "spectrogram",
          "mel_filter_bank", "to_decibels", "normalize", "pad")


def speech_like(n, rate, seed):
    """`n` float32 samples at `rate` Hz: a voiced sound (harmonics of a gliding pitch) under
    a syllable envelope (about 4 a second), with noise; quiet 0.2 s at both ends."""
    rng = np.random.default_rng(seed)
    t = np.arange(n) / rate
    pitch = 110 + 60 * rng.random() + 30 * np.sin(2 * np.pi * rng.uniform(0.3, 1.0) * t)
    phase = 2 * np.pi * np.cumsum(pitch) / rate
    voice = sum(np.sin(k * phase) * (0.7 ** k) for k in range(1, 8))
    envelope = np.clip(np.sin(2 * np.pi * rng.uniform(3, 5) * t + rng.uniform(0, 6)), 0, 1)
    x = 0.3 * voice * envelope ** 2 + 0.01 * rng.standard_normal(n)
    edge = min(int(0.2 * rate), n // 4)
    x[:edge] *= 1e-3
    x[n - edge:] *= 1e-3
    return x.astype(np.float32)


def data_set(root, count=NUM_FILES):
    """Write `count` files (WAV and FLAC in turn, 2 to 15 s at 16 kHz) and their NeMo manifest
    under `root`; returns the manifest's path."""
    import soundfile
    root = pathlib.Path(root)
    rng = np.random.default_rng(14)
    lines = []
    for i in range(count):
        n = int(rng.uniform(2, 15) * RATE)
        path = root / f"utt{i:04d}.{'flac' if i % 2 else 'wav'}"
        soundfile.write(path, speech_like(n, RATE, i), RATE, subtype="PCM_16")
        lines.append(json.dumps({"audio_filepath": str(path), "duration": n / RATE,
                                 "text": f"utterance {i}"}))
    manifest = root / "manifest.json"
    manifest.write_text("\n".join(lines) + "\n")
    return str(manifest)


def stages(backend):
    """The stages of the graph whose operator `backend` has."""
    return tuple(name for name in STAGES if backends.has_operator(backend, name))


def graph(fn, types, manifest, upto=STAGES, shard_id=0, num_shards=1):
    """The speech training graph with the stages `upto` (all by default): (features (64,
    frames padded to 16) float, their unpadded shape, the manifest index)."""
    audio, index = fn.readers.nemo_asr(
        manifest_filepaths=[manifest], sample_rate=float(RATE), dtype=types.FLOAT,
        downmix=True, read_sample_rate=False, read_text=False, read_idxs=True,
        random_shuffle=True, pad_last_batch=True, shard_id=shard_id, num_shards=num_shards,
        name="Reader")
    out = audio
    if "nonsilent_region" in upto:    # the slice needs only the region operator
        begin, length = fn.nonsilent_region(out, cutoff_db=-60)
        out = fn.slice(out, begin, length, axes=[0])
    if "random.normal" in upto:
        out = out + fn.random.normal(out) * 1e-5
    if "preemphasis_filter" in upto:
        out = fn.preemphasis_filter(out, preemph_coeff=0.97)
    if "spectrogram" in upto:
        out = fn.spectrogram(out, nfft=NFFT, window_length=int(WINDOW * RATE),
                             window_step=int(STRIDE * RATE))
    if "mel_filter_bank" in upto:
        out = fn.mel_filter_bank(out, sample_rate=RATE, nfilter=NFEATURES)
    if "to_decibels" in upto:
        out = fn.to_decibels(out, multiplier=np.log(10), reference=1.0,
                             cutoff_db=math.log(1e-20))
    shape = out.shape()
    if "normalize" in upto:
        out = fn.normalize(out, axes=[1] if "spectrogram" in upto else [0])
    if "pad" in upto:
        out = fn.pad(out, axes=[1] if "spectrogram" in upto else [0], fill_value=0,
                     align=PAD_ALIGN)
    return out, shape, index


def measure_speech(loaded, manifest, repeats, iterations, warmup, log):
    """({label: [Timing per repeat]}, stages run): the speech pipeline on each backend,
    batch 64, num_threads=2, interleaved (the first backend alternates between repeats)."""
    upto = tuple(name for name in STAGES if all(name in stages(b) for b in loaded))
    res = {}
    for rep in range(repeats):
        for b in loaded if rep % 2 == 0 else loaded[::-1]:
            t = pipelines.timed(b, graph, iterations, warmup, manifest=manifest, upto=upto)
            res.setdefault(b.label, []).append(t)
            log(f"  speech  {b.label:5s} {t.rate:7.1f} samples/s  {t.cpu_ms:.2f} CPU ms/sample")
    return res, upto


def table(res, upto=STAGES):
    """The markdown table of `measure_speech`'s results (medians; ratio = median of the
    paired per-repeat ratios)."""
    what = " -> ".join(("nemo_asr",) + tuple(upto))
    missing = [name for name in STAGES if name not in upto]
    if missing:
        what += f"; without {', '.join(missing)}: not in dali yet"
    return measure.pipeline_table("sample", [(f"speech training ({what})", res)], TARGET)


def main(argv=None):
    a, loaded, log = pipelines.standalone(__doc__, argv, iterations=4, warmup=1)
    with tempfile.TemporaryDirectory(prefix="dali-speech-") as tmp:
        res, upto = measure_speech(loaded, data_set(tmp), a.repeats, a.iterations, a.warmup,
                                   log)
    print(table(res, upto))
    return res


if __name__ == "__main__":
    main()
