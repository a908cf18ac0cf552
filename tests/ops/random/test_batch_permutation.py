"""fn.batch_permutation: permutations (or picks with repetition) of the sample indices over
many seeds, fixed points excluded on request, reproducible from the seed whatever the thread
count, uniform over many draws."""

import numpy as np
import pytest
from pipeline_utils import run_graph

from dali.ops.random import batch_permutation


def _draws(batch_size, iterations=1, seed=123, num_threads=1, **kwargs):
    outs = run_graph(lambda fn: fn.batch_permutation(**kwargs), batch_size=batch_size,
                     iterations=iterations, seed=seed, num_threads=num_threads)
    its = outs if iterations > 1 else [outs]
    return np.array([[int(x) for x in it[0]] for it in its])


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("batch_size", [1, 2, 7, 32])
def test_permutations(seed, batch_size):
    for row in _draws(batch_size, 3, seed):
        assert sorted(row) == list(range(batch_size))
    for row in _draws(batch_size, 3, seed, no_fixed_points=True):
        assert sorted(row) == list(range(batch_size))
        if batch_size > 1:
            assert (row != np.arange(batch_size)).all()


@pytest.mark.parametrize("seed", range(8))
def test_repetitions(seed):
    rows = _draws(16, 5, seed, allow_repetitions=True)
    assert ((rows >= 0) & (rows < 16)).all()
    assert any(len(set(r)) < 16 for r in rows)
    rows = _draws(16, 5, seed, allow_repetitions=True, no_fixed_points=True)
    assert ((rows >= 0) & (rows < 16)).all() and (rows != np.arange(16)).all()


def test_output_type_and_reproducibility():
    out = run_graph(lambda fn: fn.batch_permutation(), batch_size=4)[0]
    assert all(o.dtype == np.int32 and o.shape == () for o in out)
    np.testing.assert_array_equal(_draws(9, 3, seed=5), _draws(9, 3, seed=5, num_threads=3))
    assert (_draws(9, 3, seed=5) != _draws(9, 3, seed=6)).any()


@pytest.mark.parametrize("kwargs", [{}, {"no_fixed_points": True}, {"allow_repetitions": True}])
def test_uniform_over_many_draws(kwargs):
    rows = _draws(6, 600, seed=1, **kwargs)
    counts = np.array([np.bincount(rows[:, i], minlength=6) for i in range(6)])
    expected = 600 / (5 if "no_fixed_points" in kwargs else 6)
    mask = ~np.eye(6, dtype=bool) if "no_fixed_points" in kwargs else np.ones((6, 6), bool)
    assert (np.abs(counts[mask] - expected) < 6 * np.sqrt(expected)).all()


def test_no_fixed_points_is_uniform_over_derangements():
    rows = _draws(4, 450, seed=2, no_fixed_points=True)
    found = {}
    for r in map(tuple, rows):
        found[r] = found.get(r, 0) + 1
    assert len(found) == 9                       # the 9 derangements of 4, e.g. (1, 0, 3, 2)
    assert all(abs(c - 50) < 6 * np.sqrt(50) for c in found.values())


def test_fallback_after_failed_rounds_is_a_single_cycle(monkeypatch):
    monkeypatch.setattr(batch_permutation, "_ROUNDS", 0)
    for row in _draws(7, 20, seed=3, no_fixed_points=True):
        seen, i = set(), 0
        while i not in seen:
            seen.add(i)
            i = row[i]
        assert len(seen) == 7
