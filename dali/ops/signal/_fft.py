"""What the spectral operators (spectrogram, power_spectrum) share: the FFT plans, kept once
a process per size (a plan is read-only once made, so pipelines and threads share it), and the
checks of `nfft` and `power`."""

from __future__ import annotations

import functools

from dali._ext.kernels import spectral

MIN_NFFT = 3        # DALI's FFT library makes no plan below this


@functools.lru_cache(maxsize=64)
def plan(nfft):
    """The real FFT plan of size `nfft`."""
    return spectral.RealFFT(nfft)


def check_nfft(op, nfft):
    if nfft < MIN_NFFT:
        raise op.error(f"`nfft` must be at least {MIN_NFFT}, got {nfft}.")


def check_power(op, power):
    if power not in (1, 2):
        raise op.error(f"`power` can be only 1 (magnitude) or 2 (power), received {power}.")
