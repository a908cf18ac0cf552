"""Goldens from real DALI (tests/goldens/tensor_extra.npz, made by make_tensor_extra.py): the
outputs of cat, stack, one_hot, zeros/ones/full(_like), shapes, element_extract,
sequence_rearrange, permute_batch and the reductions, compared without DALI installed."""

import json
import pathlib

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import types

GOLDEN = np.load(pathlib.Path(__file__).parents[2] / "goldens" / "tensor_extra.npz")
CASES = json.loads(str(GOLDEN["cases"]))


def _batch(name):
    return [GOLDEN[f"in_{name}_{i}"] for i in range(2)]


def _build(c):
    kwargs = {k: getattr(types, v) if isinstance(v, str) and hasattr(types, v) else v
              for k, v in c["kwargs"].items()}

    def build(fn, *nodes):
        f = fn
        for part in c["op"].split("."):
            f = getattr(f, part)
        out = f(*nodes, **kwargs)
        return tuple(out) if isinstance(out, list) else out
    return build


@pytest.mark.filterwarnings("ignore:`dali.fn.shapes` is now deprecated:DeprecationWarning")
@pytest.mark.parametrize("index", range(len(CASES)),
                         ids=[f"{c['op']}-{c['kwargs']}" for c in CASES])
def test_equals_dali_goldens(index):
    c = CASES[index]
    no_input = c["inputs"] == ["none"]
    inputs = [] if no_input else [_batch(name) for name in c["inputs"]]
    outs = run_op(_build(c), inputs, batch_size=2, layouts=None if no_input else c["layouts"])
    for k, out in enumerate(outs):
        for i, o in enumerate(out):
            want = GOLDEN[f"out_{index}_{k}_{i}"]
            assert o.dtype == want.dtype and o.shape == want.shape
            if want.dtype.kind == "f":
                np.testing.assert_allclose(o, want, rtol=1e-6)
            else:
                np.testing.assert_array_equal(o, want)
