"""Helpers of the detection operators' tests: the goldens recorded by
tests/goldens/make_detection.py and random boxes."""

from __future__ import annotations

import functools
import json
import pathlib

import numpy as np
from pipeline_utils import run_op

GOLDENS = pathlib.Path(__file__).resolve().parent / "goldens" / "detection.npz"
F32 = np.float32


@functools.cache
def _goldens():
    return dict(np.load(GOLDENS))


def golden_cases(op):
    """`[(kwargs, inputs, outputs)]` of operator `op`: inputs a list of batches, outputs a list
    (per output) of lists (per sample) of arrays."""
    g = _goldens()
    out = []
    for c, kwargs in enumerate(json.loads(str(g[f"{op}_cases"]))):
        out.append((kwargs, _batches(g, f"{op}_in"), _batches(g, f"{op}_{c}_")))
    return out


def _batches(g, prefix):
    """`prefix{j}_{i}` entries as a list of lists."""
    keys = [k[len(prefix):].split("_") for k in g if k.startswith(prefix)]
    keys = [(int(j), int(i)) for j, i in keys if j.isdigit() and i.isdigit()]
    n_j, n_i = max(j for j, _ in keys) + 1, max(i for _, i in keys) + 1
    return [[g[f"{prefix}{j}_{i}"] for i in range(n_i)] for j in range(n_j)]


def run_golden(op, kwargs, inputs):
    """Outputs of dali's `op` on the golden inputs."""
    def build(fn, *nodes):
        out = getattr(fn, op)(*nodes, **kwargs)
        return tuple(out) if isinstance(out, list) else out
    return run_op(build, inputs)


def random_boxes(rng, counts, ltrb=True, ndim=2):
    """Per-sample (n, 2 * ndim) float32 boxes inside [0, 1]."""
    out = []
    for n in counts:
        lo = rng.uniform(0.0, 0.6, (n, ndim))
        size = rng.uniform(0.01, 0.4, (n, ndim))
        out.append(np.concatenate([lo, lo + size if ltrb else size], axis=1).astype(F32))
    return out
