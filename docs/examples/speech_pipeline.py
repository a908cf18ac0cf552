"""The speech recognition training pipeline of NeMo's and DALI's Jasper/QuartzNet examples,
end to end on the CPU: log-mel features from a NeMo manifest.

Run from the repository root:

    python docs/examples/speech_pipeline.py                            # on generated files
    python docs/examples/speech_pipeline.py --manifest train_manifest.json

The pipeline reads the manifest's audio files with `readers.nemo_asr` (decoded to mono float
at 16 kHz, shuffled, with each entry's index), cuts the leading and trailing silence
(`nonsilent_region` below -60 dB, then `slice`), adds a little noise (dither), applies the
pre-emphasis filter, computes the power spectrogram (512-point FFT of 20 ms Hann windows every
10 ms), the 64-band mel spectrogram and its natural logarithm (`to_decibels` with multiplier
ln 10), normalizes each band over time and pads the frames to a multiple of 16.  Per sample:
the (64, frames) float features, their unpadded shape and the manifest index.  Without
`--manifest`, 24 WAV and FLAC files of speech-like sound (bench/speech.py) and their manifest
are written to a temporary directory.
"""

import argparse
import math
import pathlib
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:   # bench/ (the data set generator)
    sys.path.insert(0, str(ROOT))

from bench import speech  # noqa: E402
from dali import fn, pipeline_def, types  # noqa: E402

SAMPLE_RATE = 16000


@pipeline_def
def speech_pipeline(manifest, sample_rate=SAMPLE_RATE, nfeatures=64, shard_id=0, num_shards=1):
    audio, index = fn.readers.nemo_asr(
        manifest_filepaths=[manifest], sample_rate=float(sample_rate), dtype=types.FLOAT,
        downmix=True, read_sample_rate=False, read_text=False, read_idxs=True,
        random_shuffle=True, pad_last_batch=True, shard_id=shard_id, num_shards=num_shards,
        name="Reader")
    begin, length = fn.nonsilent_region(audio, cutoff_db=-60)
    audio = fn.slice(audio, begin, length, axes=[0])
    audio = audio + fn.random.normal(audio) * 1e-5
    audio = fn.preemphasis_filter(audio, preemph_coeff=0.97)
    spec = fn.spectrogram(audio, nfft=512, window_length=int(0.02 * sample_rate),
                          window_step=int(0.01 * sample_rate))
    mel = fn.mel_filter_bank(spec, sample_rate=sample_rate, nfilter=nfeatures)
    log_mel = fn.to_decibels(mel, multiplier=np.log(10), reference=1.0,
                             cutoff_db=math.log(1e-20))
    shape = log_mel.shape()
    features = fn.normalize(log_mel, axes=[1])
    features = fn.pad(features, axes=[1], fill_value=0, align=16)
    return features, shape, index


def main(manifest=None, batch_size=8, iterations=3, num_threads=2):
    """Run the pipeline; returns the batches (features, shapes, indices) as numpy arrays."""
    with tempfile.TemporaryDirectory(prefix="dali-speech-example-") as tmp:
        if manifest is None:
            manifest = speech.data_set(tmp, count=24)
        pipe = speech_pipeline(manifest, batch_size=batch_size, num_threads=num_threads,
                               device_id=None, seed=7)
        pipe.build()
        batches = []
        for _ in range(iterations):
            features, shapes, index = pipe.run()
            samples = [np.array(f) for f in features]
            shapes = np.stack([np.array(s) for s in shapes])
            frames = max(f.shape[1] for f in samples)
            padded = np.stack([np.pad(f, ((0, 0), (0, frames - f.shape[1]))) for f in samples])
            batches.append((padded, shapes, np.concatenate([np.array(i) for i in index])))
            print(f"features {padded.shape} {padded.dtype}, frames "
                  f"{shapes[:, 1].min()}..{shapes[:, 1].max()}, entries "
                  f"{batches[-1][2].tolist()}")
    return batches


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", help="a NeMo manifest (default: a generated data set)")
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=3)
    a = ap.parse_args()
    main(a.manifest, a.batch_size, a.iterations)
