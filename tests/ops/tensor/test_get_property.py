"""fn.get_property: `DataNode.source_info()` and `.property(key)`."""

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import fn, pipeline_def

X = [np.zeros((3, 4, 5), np.int16), np.zeros((2, 3, 1), np.int16)]


def text(samples):
    return [bytes(np.array(s)).decode() for s in samples]


def test_layout_property():
    (out,) = run_op(lambda fn, x: x.property("layout"), [X], layouts=["HWC"])
    assert all(o.dtype == np.uint8 and o.ndim == 1 for o in out)
    assert text(out) == ["HWC", "HWC"]
    (out,) = run_op(lambda fn, x: x[0, 0].property("layout"), [X], layouts=["HWC"])
    assert text(out) == ["C", "C"]
    (out,) = run_op(lambda fn, x: fn.get_property(x, key="layout"), [X])
    assert [o.shape for o in out] == [(0,), (0,)]


def test_source_info_of_external_source_is_empty():
    (out,) = run_op(lambda fn, x: x.source_info(), [X])
    assert [o.shape for o in out] == [(0,), (0,)] and out[0].dtype == np.uint8


def test_source_info_follows_samples():
    # Readers give their outputs source info; here the external source's output gets some by
    # hand, and it must reach get_property directly and through another operator.
    infos = ["dir/a.jpg", "b/ünïcode.png"]

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: X)
        return x.source_info(), (x + 1).source_info()

    p = pipe()
    p.build()
    ex = p._executor
    ext = ex.ops[0]
    original = ext.run_cpu

    def with_info(ws, plan):
        original(ws, plan)
        ws.out_source_info = infos
    ext.run_cpu = with_info
    a, b = p.run()
    assert text(a) == infos and text(b) == infos


def test_unknown_key_fails_at_build():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(source=lambda: X).property("foo")

    p = pipe()
    with pytest.raises(RuntimeError, match="Unsupported property key: foo"):
        p.build()


@pytest.mark.oracle
def test_properties_match_real_dali():
    def build(fn, x):
        return x.property("layout"), x.source_info(), x[1].property("layout")

    ours = run_op(build, [X], layouts=["HWC"])
    real = run_op(build, [X], layouts=["HWC"], real=True)
    for o, r in zip(ours, real, strict=True):
        for a, b in zip(o, r, strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
