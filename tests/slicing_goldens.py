"""The cases of tests/goldens/slicing.npz (made by make_slicing.py with real DALI) and a runner
that replays one on dali: shared by the tests of slice, pad, paste and the other pasting
operators."""

from __future__ import annotations

import json
import pathlib

import numpy as np
from pipeline_utils import run_op

from dali import types

PATH = pathlib.Path(__file__).parent / "goldens" / "slicing.npz"


def cases(op):
    """[(case index, kwargs, layout)] of operator `op`."""
    with np.load(PATH) as data:
        listed = json.loads(str(data["cases"]))
    return [(k, kwargs, layout) for k, (name, kwargs, layout, _) in enumerate(listed)
            if name == op]


def replay(op, k, kwargs, layout):
    """(dali's outputs, DALI's recorded outputs) of case `k`."""
    with np.load(PATH) as data:
        names = json.loads(str(data["cases"]))[k][3]
        arg_inputs = {n: [data[f"{k}_arg_{n}_{i}"] for i in range(_count(data, f"{k}_arg_{n}_"))]
                      for n in names}
        inputs, j = [], 0
        while f"{k}_in{j}_0" in data:
            inputs.append([data[f"{k}_in{j}_{i}"] for i in range(_count(data, f"{k}_in{j}_"))])
            j += 1
        expected = [data[f"{k}_out_{i}"] for i in range(_count(data, f"{k}_out_"))]
    kwargs = {n: _value(v) for n, v in kwargs.items()}
    npos = len(inputs)

    def build(fn, *x):
        args = dict(zip(names, x[npos:], strict=True))
        return getattr(fn, op)(*x[:npos], **kwargs, **args)

    out = run_op(build, inputs + [arg_inputs[n] for n in names],
                 layouts=[layout or None] + [None] * (npos + len(names) - 1))[0]
    return out, expected


def _count(data, prefix):
    n = 0
    while f"{prefix}{n}" in data:
        n += 1
    return n


def _value(v):
    return getattr(types.DALIDataType, v[3:]) if isinstance(v, str) and v.startswith("DT:") \
        else v
