"""Audio decoding shared by fn.decoders.audio and fn.readers.nemo_asr: WAV, FLAC and
OGG (Vorbis, Opus) through libsndfile (the `soundfile` package, the optional extra
`dali[audio]`, imported when such an operator is built).

A batch is decoded in two passes, both on the pipeline's pool (soundfile's cffi calls release
the GIL): `open_batch` reads the headers (channels, rate, length), which give the output
shapes, and `decode_batch` decodes into the executor's buffers.  As in DALI, a sample that is
neither resampled nor downmixed is read straight into the output type (libsndfile's own
conversions: 16-bit PCM to int32 is shifted left 16 bits, to float divided by 32768); one that
is, is read as float, averaged over its channels (downmix) and resampled by the windowed-sinc
kernel, in one batch call, or else converted with DALI's normalizing conversion.
"""

from __future__ import annotations

import dataclasses
import io

import numpy as np

from dali.ops.audio import _resampling

TYPES = {np.dtype(np.int16): "int16", np.dtype(np.int32): "int32",
         np.dtype(np.float32): "float32"}


def soundfile(op):
    """The soundfile module, or an ImportError naming `op` and the extra that provides it."""
    try:
        import soundfile
    except ImportError:
        raise ImportError(f"{op.spec.display_name} decodes audio with the `soundfile` package "
                          f"(libsndfile): pip install \"dali[audio]\"") from None
    return soundfile


class DecodeError(Exception):
    """A sample that libsndfile cannot read; `index` is its place in the batch."""

    def __init__(self, index, message):
        super().__init__(message)
        self.index = index


@dataclasses.dataclass
class Opened:
    """The open files of a batch and what their outputs will be."""
    files: list             # soundfile.SoundFile per sample
    rates: np.ndarray       # the files' sample rates
    targets: np.ndarray     # per sample: the rate to resample to, or 0
    downmix: bool
    shapes: list            # output shape per sample

    def close(self):
        for f in self.files:
            f.close()


def open_batch(sf, pool, blobs, target_rates, downmix) -> Opened:
    """Open every encoded sample (1-D uint8 arrays or bytes) and work out its output shape;
    raises DecodeError for the first that cannot be opened."""
    def open_one(i):
        try:
            return sf.SoundFile(io.BytesIO(memoryview(blobs[i]).cast("B")))
        except (RuntimeError, TypeError, ValueError) as e:
            return e

    opened = pool.map(open_one, len(blobs)) if pool is not None and len(blobs) > 1 else [
        open_one(i) for i in range(len(blobs))]
    files = [f for f in opened if not isinstance(f, Exception)]
    for i, f in enumerate(opened):
        if isinstance(f, Exception):
            for good in files:
                good.close()
            raise DecodeError(i, f"cannot decode the audio: {f}")
    rates = np.array([f.samplerate for f in files], np.float64)
    targets = np.array([_resampling.as_float(t) for t in target_rates], np.float64)
    targets[(targets <= 0) | (targets == rates)] = 0
    shapes = []
    for f, target, rate in zip(files, targets, rates, strict=True):
        length = _resampling.length(f.frames, rate, target) if target else f.frames
        shapes.append((length,) if downmix else (length, f.channels))
    return Opened(files, rates, targets, downmix, shapes)


def out_rates(opened):
    """The output's sample rates (float32): the target where resampled, else the file's."""
    return np.where(opened.targets > 0, opened.targets, opened.rates).astype(np.float32)


def decode_batch(pool, opened, outputs, lobes):
    """Decode every opened sample into its output array (shapes from `opened.shapes`);
    raises DecodeError for the first sample that cannot be read whole.  Closes the files."""
    staged = {}

    def decode_one(i):
        f, out = opened.files[i], outputs[i]
        mix = opened.downmix and f.channels > 1
        try:
            if not mix and not opened.targets[i]:
                _check_length(f.read(out=out.reshape(f.frames, f.channels)), f)
                return None
            data = _check_length(f.read(f.frames, dtype="float32", always_2d=True), f)
        except (RuntimeError, ValueError) as e:
            return f"cannot decode the audio: {e}"
        if mix:
            data = data.mean(axis=1, dtype=np.float32, keepdims=True)
        if opened.targets[i]:
            staged[i] = np.ascontiguousarray(data)
        else:
            out.reshape(data.shape)[...] = _to_type(data, out.dtype)
        return None

    try:
        n = len(opened.files)
        failures = pool.map(decode_one, n) if pool is not None and n > 1 else [
            decode_one(i) for i in range(n)]
    finally:
        opened.close()
    for i, message in enumerate(failures):
        if message is not None:
            raise DecodeError(i, message)
    if staged:
        idx = sorted(staged)
        _resampling.resample(
            pool, [staged[i] for i in idx],
            [outputs[i].reshape(outputs[i].shape[0], -1) for i in idx],
            [opened.rates[i] / opened.targets[i] for i in idx], lobes)


def _check_length(data, f):
    if len(data) != f.frames:
        raise ValueError(f"the file is truncated: {len(data)} of {f.frames} frames read")
    return data


def _to_type(data, dtype):
    """DALI's normalizing conversion of float samples to `dtype` (saturating, rounding to
    nearest)."""
    if dtype == np.float32:
        return data
    info = np.iinfo(dtype)
    scaled = data * np.float32(info.max)
    return np.where(scaled >= np.float32(info.max), info.max,
                    np.rint(np.maximum(scaled, np.float32(info.min)))).astype(dtype)
