"""Helpers of the fn.transforms.* tests: running a transform graph, goldens, references."""

from __future__ import annotations

import json
import pathlib

import numpy as np
from layout_utils import run_layouts

GOLDEN = pathlib.Path(__file__).with_name("goldens") / "transforms.npz"


def run(build, inputs=(), layouts=(), *, batch_size=None, real=False):
    """(samples, layout) of `build(fn, *nodes)`: each of `inputs` (a list of samples) feeds an
    external_source with the layout at the same place in `layouts`."""
    layouts = (list(layouts) + [None] * len(inputs))[:len(inputs)]
    return run_layouts(build, list(inputs), layouts, real, num_threads=1,
                       batch_size=batch_size or (len(inputs[0]) if inputs else 3))


def homogeneous(m):
    """The (n+1, n+1) matrix of an (n, n+1) affine matrix."""
    n = m.shape[0]
    return np.vstack([np.asarray(m, np.float64), np.eye(n + 1)[n:]])


def affine(a, t):
    """The (n, n+1) matrix `[a | t]`."""
    return np.hstack([np.asarray(a, np.float64), np.asarray(t, np.float64).reshape(-1, 1)])


def compose(m, t, reverse=False):
    """The reference composition of an operator's matrix `m` with an input transform `t`."""
    hm, ht = homogeneous(m), homogeneous(t)
    out = ht @ hm if reverse else hm @ ht
    return out[:-1]


def golden_cases(op):
    """Indices of the golden cases of transform `op`."""
    with np.load(GOLDEN) as g:
        cases = json.loads(str(g["cases"]))
    return [k for k, c in enumerate(cases) if c["op"] == op]


def check_golden(k):
    """Runs golden case k with dali and compares it with real DALI's recorded output."""
    with np.load(GOLDEN) as g:
        case = json.loads(str(g["cases"]))[k]
        layouts = json.loads(str(g["layouts"]))
        name = case.get("input")
        inputs = [[g[f"input_{name}_{i}"] for i in range(3)]] if name else []
        expected = [g[f"out_{k}_{i}"] for i in range(3)]

    def build(fn, *x):
        op = getattr(fn.transforms, case["op"])
        if case["op"] == "combine":
            return op(x[0], fn.transforms.rotation(angle=25.0, center=[1, 2]), x[0],
                      **case["args"])
        return op(*x, **case["args"])

    out, layout = run(build, inputs, [layouts.get(name)], batch_size=3)
    assert layout == ("F**" if expected[0].ndim == 3 else "**")
    for o, e in zip(out, expected, strict=True):
        assert o.dtype == np.float32 and o.shape == e.shape
        np.testing.assert_allclose(o, e, rtol=1e-5, atol=1e-5)


def assert_same_as_dali(build, inputs=(), layouts=(), batch_size=None):
    """Runs `build` on dali and on real DALI (skipped without it) and compares."""
    import pytest
    pytest.importorskip("nvidia.dali")
    ours, layout = run(build, inputs, layouts, batch_size=batch_size)
    theirs, real_layout = run(build, inputs, layouts, batch_size=batch_size, real=True)
    assert layout == real_layout
    for o, t in zip(ours, theirs, strict=True):
        assert o.dtype == t.dtype and o.shape == t.shape
        np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-5)
