"""Audio: decoders.audio on encoded files ("audio_files" input kind: WAV and FLAC in turn,
mono 16-bit at 22050 Hz, 3 s a sample for "image" and 192 samples for "small", about as many
values as the image sets' pixels), and audio_resample on the same signals as float
("audio_f32") from 22050 Hz to 16000 Hz at the default quality; readers.nemo_asr reads and
decodes the "audio_files" samples listed by a manifest written to a temporary directory (one
batch is one epoch; the baseline is the idle pipeline).  The deprecated names audio_decoder,
experimental.audio_resample and nemo_asr_reader get the cases of the operators they stand
for.
"""

import io
import json

import numpy as np

from bench import opcase, speech
from bench.opcase import OpCase, aliased

RATE = 22050
LENGTH = {"image": 3 * RATE, "small": 192}


def _signals(size, batch_size):
    """Speech-like float signals (`bench.speech.speech_like`), each sample different."""
    return [speech.speech_like(LENGTH[size], RATE, i) for i in range(batch_size)]


@opcase.input_kind("audio_f32")
def _float_audio(size, batch_size):
    return _signals(size, batch_size), None


@opcase.input_kind("audio_files")
def _audio_files(size, batch_size):
    import soundfile
    files = []
    for i, x in enumerate(_signals(size, batch_size)):
        buf = io.BytesIO()
        soundfile.write(buf, x, RATE, format="FLAC" if i % 2 else "WAV", subtype="PCM_16")
        files.append(np.frombuffer(buf.getvalue(), np.uint8))
    return files, None


def manifest(size):
    """A NeMo manifest of the "audio_files" samples of `size` (written once a process)."""
    def fill(root):
        lines = []
        for i, data in enumerate(_audio_files(size, opcase.BATCH_SIZE)[0]):
            path = root / f"{i:03d}.{'flac' if i % 2 else 'wav'}"
            path.write_bytes(data.tobytes())
            lines.append(json.dumps({"audio_filepath": str(path), "text": f"utterance {i}",
                                     "duration": LENGTH[size] / RATE}))
        (root / "manifest.json").write_text("\n".join(lines) + "\n")
        return str(root / "manifest.json")
    return opcase.scratch_dir(f"dali-bench-nemo-{size}-", fill)


_DECODE = OpCase("decoders.audio", "decoders.audio",
                 lambda fn, types, x, size: fn.decoders.audio(x)[0], ("audio_files",),
                 modules=("soundfile",))
_RESAMPLE = OpCase("audio_resample", "audio_resample",
                   lambda fn, types, x, size: fn.audio_resample(x, in_rate=RATE, out_rate=16000),
                   ("audio_f32",))

_NEMO = OpCase("readers.nemo_asr", "readers.nemo_asr",
               lambda fn, types, size: fn.readers.nemo_asr(manifest_filepaths=[manifest(size)])[0],
               (), "idle", modules=("soundfile",))

CASE_LIST = [_DECODE, aliased(_DECODE, "audio_decoder"),
             _RESAMPLE, aliased(_RESAMPLE, "experimental.audio_resample"),
             _NEMO, aliased(_NEMO, "nemo_asr_reader")]
