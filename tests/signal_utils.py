"""Helpers shared by the signal operators' tests (tests/ops/signal): the golden cases of
goldens/signal.npz (made by goldens/make_signal.py with real DALI) and NumPy references."""

from __future__ import annotations

import numpy as np
from golden_cases import case_indices, load_case
from pipeline_utils import run_op

GOLDEN = "signal.npz"


def golden_cases(op):
    """The indices of the golden cases of operator `op` (for parametrize)."""
    out = []
    for k in case_indices(GOLDEN):
        case, *_ = load_case(GOLDEN, k, 0)
        if case["op"] == op:
            out.append(k)
    return out


def run_golden(k):
    """(dali's outputs, the recorded outputs) of golden case k, as lists of samples."""
    case, args, layouts, batch, expected = load_case(GOLDEN, k, 3, type_keys=("dtype",))

    def build(fn, x):
        out = getattr(fn, case["op"])(x, **args)
        return fn.stack(*out) if case["op"] == "nonsilent_region" else out
    (out,) = run_op(build, [batch], layouts=[layouts[case["input"]] or None])
    return out, expected


def hann(n):
    """DALI's Hann window: 0.5 - 0.5 cos(2 pi (k + 0.5) / n)."""
    return 0.5 - 0.5 * np.cos(2 * np.pi * (np.arange(n) + 0.5) / n)


def round_half_away(x):
    return np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5))
