"""The golden files of tests/goldens/ that store cases (written by make_*.py through
goldens/_goldens.py: `cases` JSON, optional `layouts` JSON, `input_{name}_{i}`, `out_{k}_{i}`):
their case indices, one case loaded, and the tolerance of resampled outputs."""

from __future__ import annotations

import json
import pathlib

import numpy as np

from dali import types

GOLDENS = pathlib.Path(__file__).with_name("goldens")


def case_indices(name):
    """Indices of the cases of golden file `name` (for parametrize)."""
    with np.load(GOLDENS / name) as g:
        return list(range(len(json.loads(str(g["cases"])))))


def load_case(name, k, samples, type_keys=()):
    """(case, args, layouts, batch, expected) of case k of `name`: its arguments with the
    type names of `type_keys` as dali types, the input layouts by input name ({} if none are
    stored), its `samples` input samples and the recorded outputs."""
    with np.load(GOLDENS / name) as g:
        case = json.loads(str(g["cases"]))[k]
        layouts = json.loads(str(g["layouts"])) if "layouts" in g.files else {}
        batch = [g[f"input_{case['input']}_{i}"] for i in range(samples)]
        expected = [g[f"out_{k}_{i}"] for i in range(samples)]
    args = {a: getattr(types, v) if a in type_keys else v for a, v in case["args"].items()}
    return case, args, layouts, batch, expected


def assert_near_resampled(out, ref):
    """As fn.resize's goldens: integers at most 1 off on few values, floats to 1e-4."""
    assert out.shape == ref.shape and out.dtype == ref.dtype
    diff = np.abs(out.astype(np.float64) - ref.astype(np.float64))
    if out.dtype == np.float32:
        assert diff.max() <= 1e-4 * max(1.0, np.abs(ref).max())
    else:
        assert diff.max() <= 1 and (diff > 0).mean() <= 0.025
