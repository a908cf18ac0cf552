"""Helpers of the colour operator tests: the oracle goldens (tests/goldens/make_color.py) and
the tolerance our outputs meet against real DALI.

Tolerance: integer outputs are equal except for rare off-by-one results where DALI's float32
value lies within an ulp of a rounding tie (their matrix is composed with other float
roundings than ours); float32 outputs agree to 1e-6 of the sample's largest magnitude (at
least 1e-6); float16 outputs to one unit in the last place.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

from dali import types

GOLDEN = pathlib.Path(__file__).parent / "goldens" / "color.npz"


def kwargs_of(case, arg_node=None, fn=None):
    """A golden case's keyword arguments for dali: type names to enums, "PER_FRAME" to
    `fn.per_frame(arg_node)`."""
    out = {}
    for k, v in case.items():
        if v == "PER_FRAME":
            v = fn.per_frame(arg_node)
        elif isinstance(v, str):
            v = getattr(types, v)
        out[k] = v
    return out


def golden_group(name):
    """(input batch, [(operator, kwargs)], outputs[k][i]) of one golden group."""
    g = np.load(GOLDEN)
    batch = []
    while f"{name}_input_{len(batch)}" in g:
        batch.append(g[f"{name}_input_{len(batch)}"])
    cases = json.loads(str(g[f"{name}_cases"]))
    outputs = [[g[f"{name}_{k}_{i}"] for i in range(len(batch))] for k in range(len(cases))]
    return batch, cases, outputs


def golden_args(name):
    g = np.load(GOLDEN)
    return [g[f"{name}_arg_{k}"] for k in range(len(json.loads(str(g[f"{name}_cases"]))))]


def max_error(out, want):
    """The largest difference, in the units the tolerance is stated in (see the module
    docstring): absolute for integers, relative to the sample's range for float32, ulps for
    float16."""
    a, b = out.astype(np.float64), want.astype(np.float64)
    if want.dtype == np.float16:
        return float(np.max(np.abs(a - b) / np.spacing(np.abs(want)).astype(np.float64),
                            initial=0))
    if want.dtype == np.float32:
        return float(np.max(np.abs(a - b), initial=0) / max(1.0, np.max(np.abs(b), initial=0)))
    return float(np.max(np.abs(a - b), initial=0))


def assert_matches_dali(out, want, context=""):
    assert out.dtype == want.dtype and out.shape == want.shape, context
    if want.dtype.kind in "iu":
        diff = np.abs(out.astype(np.int64) - want.astype(np.int64))
        assert diff.max(initial=0) <= 1, context
        assert np.count_nonzero(diff) <= max(2, diff.size // 200), context
    elif want.dtype == np.float16:
        assert max_error(out, want) <= 1, context
    else:
        assert max_error(out, want) <= 1e-6, context
