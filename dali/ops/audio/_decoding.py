"""Audio decoding shared by fn.decoders.audio and fn.readers.nemo_asr: WAV, FLAC and
OGG (Vorbis, Opus) through libsndfile, the library of the `soundfile` package (the optional
extra `dali[audio]`, imported when such an operator is built).

A batch is decoded in two nogil passes on the pipeline's pool (`_ext/kernels/audio_decode.pyx`
calls libsndfile through the addresses of its functions, and FLAC's frames the libFLAC inside
it, found by `_symbols`): `open_batch` reads the headers (channels, rate, length), which give
the output shapes, and `decode_batch` decodes into the executor's buffers.  As in DALI, a
sample that is neither resampled nor downmixed is read straight into the output type
(libsndfile's conversions: 16-bit PCM to int32 is shifted left 16 bits, to float divided by
32768); one that is, is read as float and averaged over its channels (downmix), then either
resampled by the windowed-sinc kernel, all such samples in one batch call, or converted with
DALI's normalizing conversion.
"""

from __future__ import annotations

import dataclasses
import io

import numpy as np

from dali._ext.kernels import audio_decode as _kernel
from dali._ext.tensor_storage import BatchStorage
from dali.ops.audio import _resampling, _symbols

TYPES = (np.dtype(np.int16), np.dtype(np.int32), np.dtype(np.float32))
TRUSTED_BYTES = 64 << 20    # a header's length is believed up to this many decoded bytes...
TRUSTED_RATIO = 1024        # ... or this many times the file's size
COUNT_BLOCK = 1 << 16       # frames a length is counted by (`_frames_in`)


def libsndfile(op):
    """libsndfile's functions (a `_kernel.Sndfile`) from the `soundfile` package, with the
    libFLAC decoder's inside it where its symbol table has them, or an ImportError naming `op`
    and the extra that provides it."""
    try:
        import soundfile
    except ImportError:
        raise ImportError(f"{op.spec.display_name} decodes audio with the `soundfile` package "
                          f"(libsndfile): pip install \"dali[audio]\"") from None
    ffi, lib = soundfile._ffi, soundfile._snd
    addresses = {name: int(ffi.cast("uintptr_t", getattr(lib, name)))
                 for name in _kernel.FUNCTIONS}
    exported = _kernel.FUNCTIONS[0]
    addresses.update(_symbols.private_functions(exported, addresses[exported],
                                                _kernel.FLAC_FUNCTIONS))
    return _kernel.Sndfile(addresses)


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
    shapes: np.ndarray      # output shape per sample, (n, 1) or (n, 2)
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
    """Open every encoded sample (a BatchStorage of 1-D uint8 samples, or a list of such
    arrays) and work out its output shape; raises DecodeError for the first that cannot
    be opened.  `target_rates`: float32 array, per sample.  `windows`: per sample None or the
    (offset, duration) in seconds of the part to decode (either may be None: from the start,
    to the end), counted in whole frames as DALI does (rounded down)."""
    if not isinstance(blobs, BatchStorage) or blobs.ndim != 1:
        blobs = [np.ascontiguousarray(b).reshape(-1) for b in
                 (blobs.samples() if isinstance(blobs, BatchStorage) else blobs)]
    files = _kernel.open_files(pool, api, blobs)
    errors = files.errors()
    if errors:
        i = min(errors)
        raise DecodeError(i, errors[i])
    _check_lengths(files, blobs)
    targets = np.asarray(target_rates, np.float32).astype(np.float64)
    targets[(targets <= 0) | (targets == files.rates)] = 0
    frames = files.frames.copy()
    spans = [None] * len(targets)
    if windows is not None:
        spans = [_span(i, w, int(files.frames[i]), files.rates[i])
                 for i, w in enumerate(windows)]
        for i, span in enumerate(spans):
            if span is not None:
                frames[i] = span[1]
    lengths = frames.copy()
    resampled = targets > 0
    lengths[resampled] = np.ceil(frames[resampled] * targets[resampled] /
                                 files.rates[resampled])
    shapes = lengths.reshape(-1, 1) if downmix else np.stack([lengths, files.channels], 1)
    return Opened(files, targets, downmix, shapes, spans)


def undecodable(api, samples, lobes):
    """{index: reason} of the encoded `samples` (1-D uint8 arrays) that libsndfile cannot open
    or read whole, decoded on the calling thread into scratch memory (for on_error="skip")."""
    blobs = [np.ascontiguousarray(b).reshape(-1) for b in samples]
    bad = {i: f"cannot decode the audio: {m}" for i, m in open_errors(api, blobs).items()}
    good = [i for i in range(len(blobs)) if i not in bad]
    while good:
        try:
            opened = open_batch(api, None, [blobs[i] for i in good],
                                np.zeros(len(good), np.float32), False)
            decode_batch(None, opened, BatchStorage.allocate(np.float32, opened.shapes),
                         lobes)
            break
        except DecodeError as e:
            bad[good.pop(e.index)] = str(e)
    return bad


def _check_lengths(files, blobs):
    """Refuse a header claiming more frames than its file holds before anything that size is
    allocated.  A length whose float32 samples would take more than TRUSTED_BYTES and
    TRUSTED_RATIO times the file is counted by decoding the file in blocks (FLAC and Vorbis
    compress silence well beyond that ratio, and FLAC's header may claim 2^36 frames in a few
    kB): a file holding fewer is truncated, as it would be found once decoded."""
    sizes = (blobs.shapes[:, 0] if isinstance(blobs, BatchStorage)
             else np.array([len(b) for b in blobs], np.int64))
    claimed = files.frames.astype(np.float64) * files.channels * 4
    for i in np.flatnonzero(claimed > np.maximum(TRUSTED_BYTES, TRUSTED_RATIO * sizes)):
        frames = int(files.frames[i])
        sample = blobs.sample(int(i)) if isinstance(blobs, BatchStorage) else blobs[i]
        found = _frames_in(sample, frames)
        if found < frames:
            raise DecodeError(int(i), f"the file is truncated: {found} of {frames} frames "
                                      "read")


def _frames_in(blob, most):
    """The frames libsndfile reads from the encoded `blob` before its data ends or fails,
    counted in blocks of COUNT_BLOCK (memory bounded by a block), up to `most`."""
    import soundfile

    found = 0
    with soundfile.SoundFile(io.BytesIO(np.asarray(blob).tobytes())) as f:
        while found < most:
            try:
                block = f.read(min(COUNT_BLOCK, most - found), dtype="float32")
            except RuntimeError:            # soundfile.LibsndfileError: the data is broken
                break
            if not len(block):
                break
            found += len(block)
    return found


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
    """Decode every opened sample into its output (a contiguous BatchStorage with the shapes
    `opened.shapes`, or a list of arrays); raises DecodeError for the first sample that
    cannot be read whole.  A sample with a span is decoded whole into a temporary array and
    its span copied."""
    files = opened.files
    mixed = opened.downmix & (files.channels > 1)
    modes = np.where(opened.targets > 0, _kernel.MODES["stage"],
                     np.where(mixed, _kernel.MODES["convert"], _kernel.MODES["direct"]))
    staging = {int(i): np.empty(files.frames[i] * files.channels[i], np.float32)
               for i in np.flatnonzero(modes != _kernel.MODES["direct"])}
    windowed = [i for i, span in enumerate(opened.spans) if span is not None]
    if isinstance(outputs, BatchStorage) and outputs.is_contiguous and not windowed:
        targets = outputs
    else:
        targets = list(outputs.samples() if isinstance(outputs, BatchStorage) else outputs)
        for i in windowed:
            if modes[i] != _kernel.MODES["stage"]:
                width = 1 if modes[i] == _kernel.MODES["convert"] else int(files.channels[i])
                targets[i] = np.empty((files.frames[i], width), targets[i].dtype)
    errors = _kernel.decode_files(pool, files, targets, staging, modes, opened.downmix)
    if errors:
        i = min(errors)
        raise DecodeError(i, errors[i])
    samples = None
    if windowed or opened.targets.any():
        samples = outputs.samples() if isinstance(outputs, BatchStorage) else outputs
    for i in windowed:
        span = opened.spans[i]
        if modes[i] != _kernel.MODES["stage"]:
            samples[i].reshape(span[1], -1)[...] = targets[i][span[0]:span[0] + span[1]]
    resampled = np.flatnonzero(opened.targets)
    if len(resampled):
        inputs = []
        for i in resampled:
            channels = 1 if opened.downmix else int(files.channels[i])
            signal = staging[int(i)][:files.frames[i] * channels].reshape(-1, channels)
            span = opened.spans[i]
            inputs.append(signal if span is None else signal[span[0]:span[0] + span[1]])
        _resampling.resample(
            pool, inputs, [samples[i].reshape(samples[i].shape[0], -1) for i in resampled],
            files.rates[resampled] / opened.targets[resampled], lobes)
