"""fn.readers.nemo_asr (and its older name fn.nemo_asr_reader): audio and transcripts listed
by NVIDIA NeMo manifests, decoded.

A manifest has one JSON object per line: `audio_filepath` (required; a relative path is
relative to the working directory, as in DALI), `text` (default ""), `duration` and `offset`
(seconds).  Entries of all manifests, in order, are the data set; `min_duration` /
`max_duration` drop entries by their `duration` field (0 where absent; compared with DALI's
float32 bounds).
With `offset` and/or `duration`, only that part of the file is decoded (whole frames,
rounded down).  Outputs, as DALI 2.4: the audio (1-D with `downmix`, else (length,
channels)); optionally the file's sample rate (float32 scalar, the file's own rate even when
resampled, as DALI), the text (uint8 UTF-8 bytes, no terminating zero) and the entry's index
(int64, shape (1,)), counted per manifest among the entries kept.

As in DALI, files are read and decoded ahead, on the reader's own thread, while the pipeline
works on the previous batch (`prefetch_queue_depth` batches ahead), so `on_error="skip"` also
skips files that cannot be decoded.  The decoding itself is spread over the pipeline's pool
(`dali.ops.audio._decoding`, libsndfile without the GIL): the pool runs one job at a time, so
the reader's jobs interleave with the pipeline's own.  Order, sharding, shuffling and padding:
`_loader`, DALI's sample for sample.
"""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np

from dali import _operator, _registry, _types
from dali._ext import files
from dali._ext.tensor_storage import BatchStorage
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _aliases
from dali.ops.audio import _decoding, _resampling
from dali.ops.readers import _common


@dataclasses.dataclass(frozen=True)
class Entry:
    path: str
    text: bytes
    index: int                 # in its manifest, among the entries kept
    window: tuple | None       # (offset, duration) in seconds, either may be None


def _n_outputs(args):
    return 1 + sum(bool(args.get(k, d)) for k, d in
                   (("read_sample_rate", True), ("read_text", True), ("read_idxs", False)))


@_registry.register
class NemoAsr(_common.Reader):
    schema = Schema(
        "readers.nemo_asr", inputs=0, outputs=_n_outputs, devices=("cpu",), random=True,
        doc="Reads automatic speech recognition (ASR) data (audio, text) from an NVIDIA NeMo "
            "compatible manifest (one JSON object per line: `audio_filepath`, optional "
            "`text`, `duration` and `offset` in seconds).\n\n"
            "Outputs: the decoded audio (1-D with `downmix`, else (length, channels)); with "
            "`read_sample_rate` the file's sample rate (float32 scalar); with `read_text` the "
            "transcript (uint8 UTF-8 bytes, empty without `text`); with `read_idxs` the "
            "entry's index in its manifest (int64, shape (1,)). With `offset`/`duration` only "
            "that part of the file is decoded.",
        args=[
            Arg("manifest_filepaths", T._STRING_VEC, REQUIRED,
                doc="List of paths to NeMo's compatible manifest files."),
            Arg("downmix", T.BOOL, True,
                doc="Downmix all channels to mono (their average): the audio is 1-D."),
            Arg("dtype", T.DATA_TYPE, T.FLOAT,
                doc="Output data type. Supported types: ``INT16``, ``INT32``, and ``FLOAT``."),
            Arg("max_duration", T.FLOAT, 0.0,
                doc="If greater than 0, entries whose `duration` is longer are left out."),
            Arg("min_duration", T.FLOAT, 0.0,
                doc="If greater than 0, entries whose `duration` is shorter are left out."),
            Arg("normalize_text", T.BOOL, None,
                doc="No longer used (deprecated in DALI, which ignores it too).",
                ignored="no longer used by DALI either"),
            _resampling.quality_arg(),
            Arg("read_idxs", T.BOOL, False,
                doc="Output the index of each entry in its manifest file."),
            Arg("read_sample_rate", T.BOOL, True,
                doc="Output the sample rate of each file."),
            Arg("read_text", T.BOOL, True, doc="Output the transcript of each entry."),
            Arg("sample_rate", T.FLOAT, -1.0,
                doc="If specified, the target sample rate, in Hz, to which the audio is "
                    "resampled."),
            *_common.shuffle_after_epoch_args(),
            *_common.loader_args(),
            _common.on_error_arg(),
        ])

    def setup(self):
        a = self.args
        self.libsndfile = _decoding.libsndfile(self)
        self.dtype = np.dtype(_types.dtype_of(T(a["dtype"])))
        if self.dtype not in _decoding.TYPES:
            raise self.error(f"Unsupported output type: {self.dtype}; supported types are "
                             "INT16, INT32 and FLOAT", RuntimeError)
        self.lobes = _resampling.lobes(self, a["quality"])
        _common.check_shuffle_after_epoch(a)
        self._cache = {} if a["read_ahead"] else None
        self._pool = None         # the pipeline's pool, the same at every run (see `read`)
        super().setup()

    def loader_options(self):
        return _common.shuffle_after_epoch_options(self.args)

    def entry_name(self, entry):
        return entry.path

    # -- listing -----------------------------------------------------------------------------
    def list_entries(self):
        a = self.args
        lo, hi = (_resampling.as_float(a[k]) for k in ("min_duration", "max_duration"))
        entries = []
        for manifest in a["manifest_filepaths"]:
            kept = 0
            for entry in _parse(manifest):
                duration = entry.get("duration")
                length = duration or 0.0           # no duration: 0, as DALI filters
                if (lo > 0 and length < lo) or (hi > 0 and length > hi):
                    continue
                offset = entry.get("offset")
                window = None if offset is None and duration is None else (offset, duration)
                entries.append(Entry(entry["audio_filepath"],
                                     str(entry.get("text", "")).encode(), kept, window))
                kept += 1
        if not entries:
            raise RuntimeError(f"{self.spec.display_name}: no entries in the manifests "
                               f"{a['manifest_filepaths']} (after the duration limits)")
        return entries

    # -- reading and decoding (on the reader's thread) ---------------------------------------
    def read(self, entries):
        """(the decoded batch, None), or (None, (index, message)) for the first file that
        cannot be read or decoded."""
        paths = [e.path for e in entries]
        blobs, failure = self._read_files(paths)
        if failure is not None:
            return None, failure
        a = self.args
        try:
            opened = _decoding.open_batch(self.libsndfile, self._pool, blobs,
                                          np.full(len(entries), a["sample_rate"], np.float32),
                                          a["downmix"], [e.window for e in entries])
            audio = BatchStorage.allocate(self.dtype, opened.shapes,
                                          ndim=1 if a["downmix"] else 2)
            _decoding.decode_batch(self._pool, opened, audio, self.lobes)
        except _decoding.DecodeError as e:
            return None, (e.index, f"{paths[e.index]}: {e}")
        return Decoded(audio, opened.files.rates.astype(np.float32)), None

    def _read_files(self, paths):
        """(the files' bytes, None) or (None, (index, message))."""
        cache = self._cache
        cached = [cache.get(p) for p in paths] if cache is not None else [None] * len(paths)
        to_read = [None if c is not None else os.fsencode(p)
                   for p, c in zip(paths, cached, strict=True)]
        found, failure = files.sizes(to_read)
        if failure is None:
            outs = [c if c is not None else np.empty(int(k), np.uint8)
                    for c, k in zip(cached, found.tolist(), strict=True)]
            failure = files.read_into(to_read, outs)
        if failure is not None:
            i, err = failure[:2]
            why = os.strerror(err) if err else "the file changed while it was read"
            return None, (i, f"cannot read {paths[i]}: {why}")
        if cache is not None:
            cache.update(zip(paths, outs, strict=True))
        return outs, None

    def first_output(self, data):
        return data.audio.samples()

    def subset(self, data, idx):
        samples = data.audio.samples()
        return Decoded(BatchStorage.from_arrays([samples[i] for i in idx]), data.rates[idx])

    def combine(self, parts):
        return Decoded(BatchStorage.from_arrays([x for d in parts for x in d.audio.samples()]),
                       np.concatenate([d.rates for d in parts]))

    # -- one iteration -----------------------------------------------------------------------
    def infer(self, ws):
        n = ws.batch_size
        self._pool = ws.thread_pool
        entries, decoded = self.next_batch(ws)
        a = self.args
        descs = [_operator.OutputDesc(None, self.dtype, "", ndim=1 if a["downmix"] else 2)]
        if a["read_sample_rate"]:
            descs.append(_operator.OutputDesc([()] * n, np.float32, ""))
        if a["read_text"]:
            descs.append(_operator.OutputDesc([(len(e.text),) for e in entries], np.uint8, ""))
        if a["read_idxs"]:
            descs.append(_operator.OutputDesc([(1,)] * n, np.int64, ""))
        return _operator.Plan(descs, entries=entries, decoded=decoded)

    def run_cpu(self, ws, plan):
        a = self.args
        ws.outputs[0] = plan.decoded.audio
        k = 1
        if a["read_sample_rate"]:
            ws.outputs[k].dense()[...] = plan.decoded.rates
            k += 1
        if a["read_text"]:
            for e, out in zip(plan.entries, ws.output_samples(k), strict=True):
                out[...] = np.frombuffer(e.text, np.uint8)
            k += 1
        if a["read_idxs"]:
            ws.outputs[k].dense()[:, 0] = [e.index for e in plan.entries]
        ws.out_source_info = [e.path for e in plan.entries]


@dataclasses.dataclass
class Decoded:
    """What `read` gives for a batch: the audio and the files' sample rates."""
    audio: object              # BatchStorage
    rates: np.ndarray          # float32


def _parse(manifest):
    """The JSON objects of the lines of `manifest`, checked for `audio_filepath`."""
    try:
        with open(manifest, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise RuntimeError(f"Could not open NEMO ASR manifest file: \"{manifest}\" "
                           f"({e.strerror})") from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as e:
            raise RuntimeError(f"{manifest}:{n}: not a JSON object: {e}") from None
        if not isinstance(entry, dict) or not isinstance(entry.get("audio_filepath"), str):
            raise RuntimeError(f"{manifest}:{n}: an entry needs an \"audio_filepath\"")
        for key in ("duration", "offset"):
            if key in entry and not isinstance(entry[key], int | float):
                raise RuntimeError(f"{manifest}:{n}: \"{key}\" must be a number")
        out.append(entry)
    return out


ALIASES = [_aliases.deprecated_alias("nemo_asr_reader", NemoAsr,
                                     "the readers moved to `fn.readers` in DALI 1.0",
                                     module=__name__)]
