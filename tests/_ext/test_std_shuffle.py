"""_ext/std_shuffle: libstdc++'s std::shuffle over std::mt19937 / std::mt19937_64, checked
against a plain Python transcription of the same algorithm and engines (numpy's MT19937 with
the legacy seeding is std::mt19937; mt19937_64 is written out and checked against the
standard's value of its 10000th output)."""

from __future__ import annotations

import numpy as np
import pytest

from dali._ext import std_shuffle

_U64 = 2**64 - 1


class _MT32:
    max = 2**32 - 1

    def __init__(self, seed):
        self._gen = np.random.MT19937()
        self._gen._legacy_seeding(seed)

    def __call__(self):
        return int(self._gen.random_raw())


class _MT64:
    """std::mt19937_64 (the standard's parameters)."""

    max = _U64

    def __init__(self, seed):
        mt = [seed & _U64]
        for i in range(1, 312):
            mt.append((6364136223846793005 * (mt[-1] ^ (mt[-1] >> 62)) + i) & _U64)
        self.mt, self.i = mt, 312

    def __call__(self):
        mt = self.mt
        if self.i == 312:
            for k in range(312):
                y = (mt[k] & ~0x7FFFFFFF & _U64) | (mt[(k + 1) % 312] & 0x7FFFFFFF)
                mt[k] = mt[(k + 156) % 312] ^ (y >> 1) ^ (0xB5026F5AA96619E9 if y & 1 else 0)
            self.i = 0
        y = mt[self.i]
        self.i += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        return (y ^ (y >> 43)) & _U64


def _uniform(g, b):
    """uniform_int_distribution(0, b)(g) of libstdc++ for a full-width engine (Lemire)."""
    bits = g.max.bit_length()
    if b == g.max:
        return g()
    r = b + 1
    product = g() * r
    low = product & g.max
    if low < r:
        threshold = (-r & g.max) % r
        while low < threshold:
            product = g() * r
            low = product & g.max
    return product >> bits


def _shuffle(items, g):
    """std::shuffle of libstdc++ (two swaps per draw while the engine's range allows)."""
    n = len(items)
    if n < 2:
        return
    if g.max // n >= n:
        i = 1
        if n % 2 == 0:
            j = _uniform(g, 1)
            items[1], items[j] = items[j], items[1]
            i = 2
        while i < n:
            p, q = divmod(_uniform(g, (i + 1) * (i + 2) - 1), i + 2)
            items[i], items[p] = items[p], items[i]
            items[i + 1], items[q] = items[q], items[i + 1]
            i += 2
        return
    for i in range(1, n):
        j = _uniform(g, i)
        items[i], items[j] = items[j], items[i]


def test_mt19937_64_reference_is_the_standard_engine():
    g = _MT64(5489)
    for _ in range(9999):
        g()
    assert g() == 9981545732273789042


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 11, 64, 999, 65535, 65536, 70001])
@pytest.mark.parametrize("seed", [0, 5, 524287, 2**32 - 1])
def test_shuffle32_is_libstdcxx(n, seed):
    got = np.arange(n, dtype=np.int64)
    std_shuffle.shuffle32(got, seed)
    want = list(range(n))
    _shuffle(want, _MT32(seed))
    assert got.tolist() == want


@pytest.mark.parametrize("n", [0, 1, 2, 7, 10, 300, 4001])
@pytest.mark.parametrize("seed", [0, 524287 + (1 << 32), 2**64 - 7])
def test_shuffle64_is_libstdcxx(n, seed):
    got = np.arange(n, dtype=np.int64) * 3 + 1          # any values: they are moved, not read
    std_shuffle.shuffle64(got, seed)
    want = (np.arange(n, dtype=np.int64) * 3 + 1).tolist()
    _shuffle(want, _MT64(seed))
    assert got.tolist() == want


def test_real_dalis_first_shuffle_after_epoch():
    """Real DALI 2.4's readers.file over 10 files, shuffle_after_epoch with the default seed:
    the first epoch's order (recorded)."""
    order = np.arange(10, dtype=np.int64)
    std_shuffle.shuffle64(order, 524287 + (1 << 32))
    assert order.tolist() == [9, 6, 0, 5, 4, 2, 8, 1, 7, 3]


def test_only_contiguous_int64_arrays():
    with pytest.raises(ValueError):
        std_shuffle.shuffle32(np.arange(10, dtype=np.int64)[::2], 1)
    with pytest.raises(ValueError):
        std_shuffle.shuffle64(np.arange(10, dtype=np.int32), 1)
