"""fn.decoders.audio (and its older name fn.audio_decoder): decodes WAV, FLAC and OGG
(Vorbis, Opus) bytes into waveforms and their sample rates.

Decoding is libsndfile's through the `soundfile` package (extra `dali[audio]`), on the
pipeline's pool; resampling to `sample_rate` is DALI's windowed-sinc filter
(`dali.ops.audio._decoding` has the passes and the conversions).  Output 0 is (length,
channels), or (length,) with `downmix`, without layout; output 1 the sample rate (float32
scalar): the target rate where resampled, else the file's.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _aliases
from dali.ops.audio import _decoding, _resampling
from dali.ops.readers import _common


@_registry.register
class Audio(_operator.Operator):
    schema = Schema(
        "decoders.audio", inputs=1, outputs=2, devices=("cpu",),
        doc="Decodes waveforms from encoded audio data.\n\n"
            "It supports the following audio formats: WAV, FLAC, and OGG (including both OGG "
            "Vorbis and OGG Opus). The input holds each file's bytes (1-D uint8).\n\n"
            "This operator produces the following outputs:\n\n"
            "* output[0]: A batch of decoded data\n"
            "* output[1]: A batch of sampling rates [Hz].",
        args=[Arg("downmix", T.BOOL, False,
                  doc="If set to True, downmix all input channels to mono (their average).\n\n"
                      "If downmixing is turned on, the decoder output is 1D. If downmixing is "
                      "turned off, it produces 2D output with interleaved channels."),
              Arg("dtype", T.DATA_TYPE, T.FLOAT,
                  doc="Output data type.\n\nSupported types: ``INT16``, ``INT32``, ``FLOAT``."),
              Arg("on_error", T.STRING, "raise",
                  doc='A file that cannot be decoded: "raise" (the error, as DALI does) or '
                      "\"skip\" (the decoder's input must be a reader's first output: the "
                      "reader checks each file it reads by decoding it, on its own thread, and "
                      "replaces the bad ones by the next samples, listed in its "
                      "`reader_meta()[\"skipped\"]`; each file is decoded twice). Not in DALI "
                      "2.4."),
              _resampling.quality_arg(),
              Arg("sample_rate", T.FLOAT, 0.0, tensor=True,
                  doc="If specified, the target sample rate, in Hz, to which the audio is "
                      "resampled.")])

    def setup(self):
        self.libsndfile = _decoding.libsndfile(self)
        self.dtype = np.dtype(_types.dtype_of(T(self.args["dtype"])))
        if self.dtype not in _decoding.TYPES:
            raise self.error(f"Unsupported output type: {self.dtype}; supported types are "
                             "INT16, INT32 and FLOAT", RuntimeError)
        self.lobes = _resampling.lobes(self, self.args["quality"])
        api, lobes = self.libsndfile, self.lobes
        _common.skip_undecodable(self, lambda samples: {
            i: f"{self.spec.display_name}: {reason}"
            for i, reason in _decoding.undecodable(api, samples, lobes).items()})

    def infer(self, ws):
        if ws.input_dtype(0) != np.uint8:
            raise self.error(f"the input must be the bytes of audio files (uint8), got "
                             f"{ws.input_dtype(0)}", RuntimeError)
        try:
            opened = _decoding.open_batch(self.libsndfile, ws.thread_pool,
                                          ws.input_storage(0),
                                          ws.arg_array("sample_rate", np.float32),
                                          self.args["downmix"])
        except _decoding.DecodeError as e:
            raise ws.sample_error(e.index, str(e), RuntimeError) from None
        ndim = 1 if self.args["downmix"] else 2
        return _operator.Plan([_operator.OutputDesc(opened.shapes, self.dtype, "", ndim=ndim),
                               _operator.OutputDesc(np.zeros((len(opened.shapes), 0), np.int64),
                                                    np.float32, "", ndim=0)],
                              opened=opened)

    def run_cpu(self, ws, plan):
        try:
            _decoding.decode_batch(ws.thread_pool, plan.opened, ws.outputs[0], self.lobes)
        except _decoding.DecodeError as e:
            raise ws.sample_error(e.index, str(e), RuntimeError) from None
        ws.outputs[1].dense()[...] = plan.opened.rates


ALIASES = [_aliases.deprecated_alias("audio_decoder", Audio,
                                     "the decoders moved to `fn.decoders` in DALI 1.0",
                                     module=__name__)]
