import numpy as np

from dali._ext import rng


def test_philox_known_answers():
    # Random123 known-answer vectors for Philox4x32-10 (key words in little-endian order)
    assert rng.philox(0, (0, 0, 0, 0)) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
    assert rng.philox(0xFFFFFFFFFFFFFFFF, (0xFFFFFFFF,) * 4) == (
        0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)
    assert rng.philox(0x299F31D0A4093822, (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344)) \
        == (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)


def test_uniform_is_a_function_of_sample_id_only():
    key = rng.mix_key(7, 0)
    ids = np.arange(10, dtype=np.int64)
    counts = np.full(10, 5, dtype=np.int64)
    full = rng.uniform(key, ids, counts).reshape(10, 5)
    part = rng.uniform(key, ids[3:6], counts[3:6]).reshape(3, 5)
    np.testing.assert_array_equal(full[3:6], part)
    assert ((full >= 0) & (full < 1)).all()
    other_epoch = rng.uniform(rng.mix_key(7, 1), ids, counts)
    assert not np.array_equal(full.ravel(), other_epoch)


def test_streams_are_independent():
    key = rng.mix_key(1, 0)
    ids = np.arange(1000, dtype=np.int64)
    ones = np.ones(1000, dtype=np.int64)
    a = rng.uniform(key, ids, ones, 0)
    b = rng.uniform(key, ids, ones, 1)
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.1


def test_distributions():
    key = rng.mix_key(3, 0)
    ids = np.arange(20000, dtype=np.int64)
    ones = np.ones(20000, dtype=np.int64) * 3
    u = rng.uniform(key, ids, ones)
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    z = rng.normal(key, ids, ones)
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02


def test_derived_seeds_are_deterministic_31_bit():
    s = rng.derive_seeds(42, 100)
    assert (s >= 0).all() and (s < 2 ** 31).all()
    np.testing.assert_array_equal(s, rng.derive_seeds(42, 100))
    np.testing.assert_array_equal(s[:10], rng.derive_seeds(42, 10))
    assert len(set(s.tolist())) == 100
