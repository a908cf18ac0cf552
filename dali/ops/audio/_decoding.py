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
    spans: list             # per sample: None, or the (first frame, count) decoded

    @property
    def rates(self):
        """The output's sample rates (float32): the target where resampled, else the
        file's."""
        return np.where(self.targets > 0, self.targets, self.files.rates).astype(np.float32)


def open_errors(api, blobs):
    """{index: libsndfile's message} of the encoded samples that cannot be opened (headers
    only, on the caller's thread)."""
    return _kernel.open_files(None, api, list(blobs)).errors()


def open_batch(api, pool, blobs, target_rates, downmix, windows=None) -> Opened:
    """Open every encoded sample (1-D uint8 arrays) and work out its output shape; raises
    DecodeError for the first that cannot be opened.  `windows`: per sample None or the
    (offset, duration) in seconds of the part to decode (either may be None: from the start,
    to the end), counted in whole frames as DALI does (rounded down)."""
    files = _kernel.open_files(pool, api, [np.ascontiguousarray(b).reshape(-1) for b in blobs])
    errors = files.errors()
    if errors:
        i = min(errors)
        raise DecodeError(i, errors[i])
    targets = np.array([_resampling.as_float(t) for t in target_rates], np.float64)
    targets[(targets <= 0) | (targets == files.rates)] = 0
    spans = [None] * len(targets) if windows is None else [
        _span(i, w, int(files.frames[i]), files.rates[i]) for i, w in enumerate(windows)]
    shapes = []
    for frames, channels, rate, target, span in zip(files.frames, files.channels, files.rates,
                                                    targets, spans, strict=True):
        frames = int(frames) if span is None else span[1]
        length = _resampling.length(frames, rate, target) if target else frames
        shapes.append((length,) if downmix else (length, int(channels)))
    return Opened(files, targets, downmix, shapes, spans)


def _span(i, window, frames, rate):
    """(first frame, frame count) of `window` ((offset, duration) in seconds) or None."""
    if window is None:
        return None
    offset, duration = window
    start = int((offset or 0.0) * rate)
    count = frames - start if duration is None else int(duration * rate)
    if start < 0 or count < 0 or start + count > frames:
        raise DecodeError(i, f"the offset {offset} s and duration {duration} s select frames "
                             f"{start} to {start + count} of a file of {frames} frames")
    return start, count


def decode_batch(pool, opened, outputs, lobes):
    """Decode every opened sample into its output array (shapes from `opened.shapes`);
    raises DecodeError for the first sample that cannot be read whole.  A sample with a span
    is decoded whole into a temporary array and its span copied."""
    files = opened.files
    modes, staging, targets = [], [], list(outputs)
    for i, (frames, channels) in enumerate(zip(files.frames, files.channels, strict=True)):
        mixed = opened.downmix and channels > 1
        mode = "stage" if opened.targets[i] else "convert" if mixed else "direct"
        modes.append(_kernel.MODES[mode])
        staging.append(None if mode == "direct" else np.empty(frames * channels, np.float32))
        if opened.spans[i] is not None and mode != "stage":
            width = 1 if mode == "convert" else int(channels)
            targets[i] = np.empty((frames, width), outputs[i].dtype)
    errors = _kernel.decode_files(pool, files, targets, staging, modes, opened.downmix)
    if errors:
        i = min(errors)
        raise DecodeError(i, errors[i])
    for i, span in enumerate(opened.spans):
        if span is not None and targets[i] is not outputs[i]:
            outputs[i].reshape(span[1], -1)[...] = targets[i][span[0]:span[0] + span[1]]
    resampled = np.flatnonzero(opened.targets)
    if len(resampled):
        inputs = []
        for i in resampled:
            channels = 1 if opened.downmix else int(files.channels[i])
            signal = staging[i][:files.frames[i] * channels].reshape(-1, channels)
            span = opened.spans[i]
            inputs.append(signal if span is None else signal[span[0]:span[0] + span[1]])
        _resampling.resample(
            pool, inputs, [outputs[i].reshape(outputs[i].shape[0], -1) for i in resampled],
            files.rates[resampled] / opened.targets[resampled], lobes)
