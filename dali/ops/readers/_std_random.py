"""The C++ standard-library randomness real DALI's readers use, reproduced exactly.

The readers' sample order is part of their observable behaviour (users compare it, tests pin it),
so it follows libstdc++ bit for bit:

* `MinStd0`: `std::default_random_engine` (`minstd_rand0`), seeded from `std::seed_seq{seed}`;
  draws from the shuffle buffer with `uniform_int`.
* `shuffle`: `std::shuffle` over a `std::mt19937` (numpy's MT19937 with the legacy seeding is the
  same generator), including libstdc++'s two-swaps-per-draw variant.
* `uniform_int`: `std::uniform_int_distribution` - Lemire's method for a full 32-bit generator,
  division with rejection otherwise.
"""

from __future__ import annotations

import numpy as np

from dali._ext import rng

_M31 = 2147483647
_U32 = 0xFFFFFFFF


class MinStd0:
    """`std::minstd_rand0` seeded through `std::seed_seq{seed}` (as `Loader` seeds it)."""

    min, max = 1, _M31 - 1

    def __init__(self, seed):
        word = int(rng.seed_seq([seed], 4)[3])      # one 32-bit word: the 4th of k + 3
        self.x = word % _M31 or 1

    def __call__(self):
        self.x = self.x * 16807 % _M31
        return self.x


class MT19937:
    """`std::mt19937(seed)`, drawing 32-bit words in blocks."""

    min, max = 0, _U32

    def __init__(self, seed):
        self._gen = np.random.MT19937()
        self._gen._legacy_seeding(seed & _U32)
        self._block = []

    def __call__(self):
        if not self._block:
            self._block = self._gen.random_raw(1024).tolist()[::-1]
        return self._block.pop()


def uniform_int(g, a, b):
    """`std::uniform_int_distribution(a, b)(g)` as libstdc++ computes it."""
    urngrange = g.max - g.min
    urange = b - a
    if urngrange == urange:
        return a + g() - g.min
    erange = urange + 1
    if urngrange == _U32:
        product = g() * erange
        low = product & _U32
        if low < erange:
            threshold = (-erange & _U32) % erange
            while low < threshold:
                product = g() * erange
                low = product & _U32
        return a + (product >> 32)
    scaling = urngrange // erange
    past = erange * scaling
    while True:
        r = g() - g.min
        if r < past:
            return a + r // scaling


def shuffle(items, g):
    """`std::shuffle(items.begin(), items.end(), g)` in place (libstdc++)."""
    n = len(items)
    if n < 2:
        return
    if (g.max - g.min) // n >= n:
        i = 1
        if n % 2 == 0:
            j = uniform_int(g, 0, 1)
            items[1], items[j] = items[j], items[1]
            i = 2
        while i < n:
            span = i + 1
            x = uniform_int(g, 0, span * (span + 1) - 1)
            p, q = divmod(x, span + 1)
            items[i], items[p] = items[p], items[i]
            items[i + 1], items[q] = items[q], items[i + 1]
            i += 2
        return
    for i in range(1, n):
        j = uniform_int(g, 0, i)
        items[i], items[j] = items[j], items[i]
