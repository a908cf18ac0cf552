"""What the audio operators share about resampling (fn.audio_resample, fn.decoders.audio's
`sample_rate`): the `quality` argument, DALI's output length and the call of the
windowed-sinc kernel (`_ext/kernels/audio_resample.pyx`, DALI's filter and arithmetic).

Rates are DALI's float arguments: they are rounded to float32 before the length and the step
are computed in double, as DALI does, so `scale=1.7` on 2000 samples gives DALI's 3401.
"""

from __future__ import annotations

import numpy as np

from dali._ext.kernels import audio_resample as _kernel
from dali._schema import Arg
from dali._types import DALIDataType as T

TYPES = _kernel.TYPES               # the sample types the kernel reads and writes
TYPE_NAMES = "int8, uint8, int16, uint16, int32, uint32, float"


def quality_arg():
    return Arg("quality", T.FLOAT, 50.0,
               doc="Resampling quality, where 0 is the lowest, and 100 is the highest.\n\n"
                   "0 gives 3 lobes of the sinc filter, 50 gives 16 lobes, and 100 gives 64 "
                   "lobes.")


def lobes(op, quality):
    """The filter's zero crossings each side for `quality`; DALI's error when out of range."""
    if not 0 <= quality <= 100:
        raise op.error(f"``quality`` out of range: {quality:g}\nValid range is [0..100].",
                       RuntimeError)
    return _kernel.lobes_for_quality(float(np.float32(quality)))


def as_float(value) -> float:
    """A rate or scale as DALI holds it (float32), widened to double."""
    return float(np.float32(value))


def window(lobes_):
    """(the tabulated filter (float32), its scale, its centre) for `lobes_` zero crossings."""
    return _kernel.window(lobes_)


def length(n, in_rate, out_rate) -> int:
    """The length of `n` samples at `in_rate` resampled to `out_rate` (DALI's rounding up)."""
    return _kernel.resampled_length(n, in_rate, out_rate)


def resample_storage(pool, src, dst, scales, lobes_):
    """Resample the samples of batch `src` into those of batch `dst` (contiguous storage)."""
    _kernel.resample_storage(pool, src, dst, scales, lobes_)


def resample(pool, inputs, outputs, scales, lobes_):
    """Resample each (length, channels) input into its output; `scales` are input samples per
    output sample (see `_kernel.resample_batch`)."""
    _kernel.resample_batch(pool, list(inputs), list(outputs), scales, lobes_)
