"""Signal operators: audio ("audio": float32 signals, 16000 samples for "image" and 256 for
"small", each a mix of tones with a quiet start and end), linear spectrograms ("spectrogram":
(257, 100) frequency-major float32 powers for "image", (257, 2) for "small") and mel
spectrograms ("mel_spectrogram": (128, 100) and (128, 2))."""

import numpy as np

from bench import opcase
from bench.opcase import OpCase, unary

_LENGTH = {"image": 16000, "small": 256}
_FRAMES = {"image": 100, "small": 2}


@opcase.input_kind("audio")
def _audio(size, batch_size):
    n = _LENGTH[size]
    t = np.arange(n) / 16000.0
    out = []
    for i in range(batch_size):
        x = 0.5 * np.sin(2 * np.pi * (220 + 10 * i) * t) + 0.2 * np.sin(2 * np.pi * 3000 * t)
        x[: n // 8] *= 1e-4
        x[-n // 8:] *= 1e-4
        out.append(x.astype(np.float32))
    return out, None


def _powers(bins, size, batch_size, seed):
    rng = np.random.default_rng(seed)
    return [(rng.random((bins, _FRAMES[size])) ** 4 * 100).astype(np.float32)
            for _ in range(batch_size)], "ft"


@opcase.input_kind("spectrogram")
def _spectrogram(size, batch_size):
    return _powers(257, size, batch_size, 21)


@opcase.input_kind("mel_spectrogram")
def _mel_spectrogram(size, batch_size):
    return _powers(128, size, batch_size, 22)


CASE_LIST = [
    unary("preemphasis_filter", kind="audio"),
    unary("spectrogram", kind="audio", nfft=512, window_length=512, window_step=160),
    unary("power_spectrum", kind="audio"),    # (DALI 2.4 crashes with nfft < 16000 here)
    unary("mel_filter_bank", kind="spectrogram", sample_rate=16000.0),
    unary("to_decibels", kind="spectrogram"),
    unary("mfcc", kind="mel_spectrogram", n_mfcc=20),
    OpCase("nonsilent_region", "nonsilent_region",
           lambda fn, types, x, size: tuple(fn.nonsilent_region(x, window_length=64)),
           ("audio",)),
]
