"""The C++ standard-library randomness real DALI's readers use, reproduced exactly.

The readers' sample order is part of their observable behaviour (users compare it, tests pin it),
so it follows libstdc++ bit for bit:

* `MinStd0`: `std::default_random_engine` (`minstd_rand0`), seeded from `std::seed_seq{seed}`;
  draws from the shuffle buffer with `uniform_int`.
* `shuffle_mt19937`, `shuffle_mt19937_64`: `std::shuffle` of an int64 array over a
  `std::mt19937` / `std::mt19937_64`, including libstdc++'s two-swaps-per-draw variant (in C:
  `_ext/std_shuffle.h`, which also has the uniform draws of full-width engines).
* `uniform_int`: `std::uniform_int_distribution` for `MinStd0` (division with rejection).
"""

from __future__ import annotations

from dali._ext import rng, std_shuffle

_M31 = 2147483647

shuffle_mt19937 = std_shuffle.shuffle32
shuffle_mt19937_64 = std_shuffle.shuffle64


class MinStd0:
    """`std::minstd_rand0` seeded through `std::seed_seq{seed}` (as `Loader` seeds it)."""

    min, max = 1, _M31 - 1

    def __init__(self, seed):
        word = int(rng.seed_seq([seed], 4)[3])      # one 32-bit word: the 4th of k + 3
        self.x = word % _M31 or 1

    def __call__(self):
        self.x = self.x * 16807 % _M31
        return self.x


def uniform_int(g, a, b):
    """`std::uniform_int_distribution(a, b)(g)` as libstdc++ computes it."""
    urngrange = g.max - g.min
    urange = b - a
    if urngrange == urange:
        return a + g() - g.min
    erange = urange + 1
    scaling = urngrange // erange
    past = erange * scaling
    while True:
        r = g() - g.min
        if r < past:
            return a + r // scaling
