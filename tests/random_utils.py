"""Checks every random operator must pass, shared by the tests in this folder.

`build(fn, **kw)` makes the operator under test, passing `kw` (the operator's `seed=` here) to
it, and returns its DataNode; the checks run it in small pipelines and compare the samples.
"""

from __future__ import annotations

import importlib
import inspect

import numpy as np
from pipeline_utils import dali_fn, run_graph


def draw(build, *, batch_size=4, seed=123, num_threads=1, iterations=1, real=False,
         op_seed=None):
    """The samples of `build(fn)` (a flat list over iterations); `op_seed` is the operator's
    `seed=` argument, `seed` the pipeline's."""
    kw = {} if op_seed is None else {"seed": op_seed}
    res = run_graph(lambda fn: build(fn, **kw), batch_size=batch_size, seed=seed,
                    num_threads=num_threads, iterations=iterations, real=real)
    its = res if iterations > 1 else [res]
    return [s for it in its for s in it[0]]


def types_of(real):
    """The `types` module of dali, or of real NVIDIA DALI (`real=True`)."""
    return importlib.import_module("nvidia.dali.types" if real else "dali.types")


def same(a, b):
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)
        for x, y in zip(a, b, strict=True))


def check_reproducible_and_seeded(build):
    """Same pipeline seed: same draws; another: different ones; `seed=` overrides it."""
    a = draw(build, seed=1)
    assert same(a, draw(build, seed=1))
    assert not same(a, draw(build, seed=2))
    fixed = draw(build, seed=1, op_seed=77)
    assert same(fixed, draw(build, seed=2, op_seed=77))
    assert not same(fixed, a)


def check_independent_of_pruned_ops_threads_and_batching(build):
    """Unused random operators, num_threads and the split of the epoch into batches do not
    change a sample's values."""
    ref = draw(build, batch_size=4)

    def with_unused(fn, **kw):
        build(fn)                        # defined first, never used: pruned
        return build(fn, **kw)

    assert same(ref, draw(with_unused, batch_size=4))
    assert same(ref, draw(build, batch_size=4, num_threads=4))
    assert same(ref, draw(build, batch_size=2, iterations=2))
    assert same(ref[:3], draw(build, batch_size=3))


def check_signature_matches_real_dali(name):
    ours = inspect.signature(getattr(dali_fn().random, name))
    real = inspect.signature(getattr(dali_fn(real=True).random, name))
    assert list(ours.parameters) == list(real.parameters)
    for p, q in zip(ours.parameters.values(), real.parameters.values(), strict=True):
        assert (p.kind, p.default) == (q.kind, q.default), p.name
