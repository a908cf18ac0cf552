"""Chained comparisons (`0 < x < 3`) under enable_conditionals: the `and` of the links."""

import numpy as np
import pytest

from dali import fn, pipeline_def
from dali.pipeline import experimental


def _values():
    return [np.array(v, np.int32) for v in [-1, 1, 2, 5]]


def _body():
    x = fn.external_source(source=_values, batch=True)
    v = 0 < x < 3
    if 0 < x < 3:
        y = x * 10
    else:
        y = x
    return y, v


@pytest.mark.parametrize("debug", [False, True])
def test_chain_in_an_if_and_as_a_value(debug):
    kw = {"debug": True} if debug else {}
    deco = experimental.pipeline_def if debug else pipeline_def
    p = deco(_body, batch_size=4, num_threads=1, device_id=None, enable_conditionals=True, **kw)()
    y, v = p.run()
    assert y.as_array().tolist() == [-1, 10, 20, 5]
    assert v.as_array().tolist() == [False, True, True, False]


def test_python_values_keep_python_semantics():
    calls = []

    def val(x):
        calls.append(x)
        return x

    @pipeline_def(batch_size=1, num_threads=1, device_id=None, enable_conditionals=True)
    def pipe():
        calls.clear()
        short = val(3) < val(2) < val(1)         # stops after the first link
        full = val(1) < val(2) <= val(2) != val(5)
        assert (short, full) == (False, True)
        return fn.external_source(source=lambda: [np.zeros(1, np.int32)], batch=True)

    pipe()
    assert calls == [3, 2, 1, 2, 2, 5]


@pytest.mark.oracle
def test_chain_matches_dali():
    from nvidia.dali import fn as dfn
    from nvidia.dali import pipeline_def as dpipeline_def

    @dpipeline_def(batch_size=4, num_threads=1, device_id=None, enable_conditionals=True)
    def dpipe():
        x = dfn.external_source(source=_values, batch=True)
        v = 0 < x < 3
        if 0 < x < 3:
            y = x * 10
        else:
            y = x
        return y, v

    d = dpipe()
    d.build()
    p = pipeline_def(_body, batch_size=4, num_threads=1, device_id=None,
                     enable_conditionals=True)()
    for a, b in zip(d.run(), p.run(), strict=True):
        assert a.as_array().tolist() == b.as_array().tolist()
