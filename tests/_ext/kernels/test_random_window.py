"""The random_window kernel's draws: the numbers of `rng.uniform` (the workspace's streams) and
the exponents of the aspect ratios as NumPy computes them in float32, for any number of
attempts (Philox runs of every length), sample ids past 2^32 and other streams."""

import numpy as np
import pytest

from dali._ext import rng
from dali._ext.kernels import random_window


@pytest.mark.parametrize("attempts", [0, 1, 3, 7, 10, 37])
@pytest.mark.parametrize("stream", [0, 5])
def test_draws_are_the_workspace_streams(attempts, stream):
    key = rng.mix_key(987654321, 4)
    ids = np.array([0, 1, 63, 2**32 + 9, 12345678901234], np.int64)
    aspect = np.float32(0.6), np.float32(1.9)
    log_lo = np.log(aspect[0])
    log_span = np.log(aspect[1]) - log_lo
    draws = np.empty((len(ids), 2 * attempts + 2))
    args = np.empty((len(ids), attempts), np.float32)
    random_window.draw_uniforms(key, ids, stream, log_lo, log_span, draws, args)
    want = rng.uniform(key, ids, np.full(len(ids), 2 * attempts + 2, np.int64), stream)
    np.testing.assert_array_equal(draws, want.reshape(len(ids), -1))
    r = draws[:, 1:2 * attempts:2].astype(np.float32)
    np.testing.assert_array_equal(args, log_lo + r * log_span)


def test_draws_check_their_arrays():
    with pytest.raises(ValueError, match="same samples"):
        random_window.draw_uniforms(1, np.arange(3, dtype=np.int64), 0, 0.0, 1.0,
                                    np.empty((3, 6)), np.empty((3, 3), np.float32))
