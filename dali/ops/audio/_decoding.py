"""Audio decoding shared by fn.decoders.audio and fn.readers.nemo_asr: WAV, FLAC and
OGG (Vorbis, Opus) through libsndfile, the library of the `soundfile` package (the optional
extra `dali[audio]`, imported when such an operator is built).

A batch is decoded in two nogil passes on the pipeline's pool (`_ext/kernels/audio_decode.pyx`
calls libsndfile through the addresses of its functions): `open_batch` reads the headers
(channels, rate, length), which give the output shapes, and `decode_batch` decodes into the
executor's buffers.  As in DALI, a sample that is neither resampled nor downmixed is read
straight into the output type (libsndfile's conversions: 16-bit PCM to int32 is shifted left
16 bits, to float divided by 32768); one that is, is read as float and averaged over its
channels (downmix), then either resampled by the windowed-sinc kernel, all such samples in one
batch call, or converted with DALI's normalizing conversion.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from dali._ext.kernels import audio_decode as _kernel
from dali.ops.audio import _resampling

TYPES = (np.dtype(np.int16), np.dtype(np.int32), np.dtype(np.float32))


def libsndfile(op):
    """libsndfile's functions (a `_kernel.Sndfile`) from the `soundfile` package, or an
    ImportError naming `op` and the extra that provides it."""
    try:
        import soundfile
    except ImportError:
        raise ImportError(f"{op.spec.display_name} decodes audio with the `soundfile` package "
                          f"(libsndfile): pip install \"dali[audio]\"") from None
    ffi, lib = soundfile._ffi, soundfile._snd
    return _kernel.Sndfile({name: int(ffi.cast("uintptr_t", getattr(lib, name)))
                            for name in _kernel.FUNCTIONS})


class DecodeError(Exception):
    """A sample libsndfile cannot read; `index` is its place in the batch."""

    def __init__(self, index, message):
        super().__init__(f"cannot decode the audio: {message}")
        self.index = index


@dataclasses.dataclass
class Opened:
    """The open files of a batch and what their outputs will be."""
    files: object           # _kernel.Files
    targets: np.ndarray     # per sample: the rate to resample to, or 0
    downmix: bool
    shapes: list            # output shape per sample

    @property
    def rates(self):
        """The output's sample rates (float32): the target where resampled, else the
        file's."""
        return np.where(self.targets > 0, self.targets, self.files.rates).astype(np.float32)


def open_batch(api, pool, blobs, target_rates, downmix) -> Opened:
    """Open every encoded sample (1-D uint8 arrays) and work out its output shape; raises
    DecodeError for the first that cannot be opened."""
    files = _kernel.open_files(pool, api, [np.ascontiguousarray(b).reshape(-1) for b in blobs])
    errors = files.errors()
    if errors:
        i = min(errors)
        raise DecodeError(i, errors[i])
    targets = np.array([_resampling.as_float(t) for t in target_rates], np.float64)
    targets[(targets <= 0) | (targets == files.rates)] = 0
    shapes = []
    for frames, channels, rate, target in zip(files.frames, files.channels, files.rates,
                                              targets, strict=True):
        length = _resampling.length(int(frames), rate, target) if target else int(frames)
        shapes.append((length,) if downmix else (length, int(channels)))
    return Opened(files, targets, downmix, shapes)


def decode_batch(pool, opened, outputs, lobes):
    """Decode every opened sample into its output array (shapes from `opened.shapes`);
    raises DecodeError for the first sample that cannot be read whole."""
    files = opened.files
    modes, staging = [], []
    for frames, channels, target in zip(files.frames, files.channels, opened.targets,
                                        strict=True):
        mixed = opened.downmix and channels > 1
        mode = "stage" if target else "convert" if mixed else "direct"
        modes.append(_kernel.MODES[mode])
        staging.append(None if mode == "direct" else np.empty(frames * channels, np.float32))
    errors = _kernel.decode_files(pool, files, list(outputs), staging, modes,
                                  opened.downmix)
    if errors:
        i = min(errors)
        raise DecodeError(i, errors[i])
    resampled = np.flatnonzero(opened.targets)
    if len(resampled):
        inputs = []
        for i in resampled:
            channels = 1 if opened.downmix else int(files.channels[i])
            inputs.append(staging[i][:files.frames[i] * channels].reshape(-1, channels))
        _resampling.resample(
            pool, inputs, [outputs[i].reshape(outputs[i].shape[0], -1) for i in resampled],
            files.rates[resampled] / opened.targets[resampled], lobes)
