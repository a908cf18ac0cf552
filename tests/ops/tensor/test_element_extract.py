"""fn.element_extract: frames of sequences as outputs, layouts and errors, against NumPy and
real DALI."""

import numpy as np
import pytest
from layout_utils import run_layouts
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

RNG = np.random.default_rng(51)


def _sequences(dtype=np.uint8, n=4, low=3):
    return [RNG.integers(0, 200, (int(RNG.integers(low, 6)), 3, 2)).astype(dtype)
            for _ in range(n)]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64])
def test_outputs_equal_numpy(dtype):
    batch = _sequences(dtype)
    emap = [2, 0, 2, 1]
    outs = run_op(lambda fn, x: tuple(fn.element_extract(x, element_map=emap)), [batch])
    assert len(outs) == len(emap)
    for e, out in zip(emap, outs, strict=True):
        for o, x in zip(out, batch, strict=True):
            assert o.dtype == dtype
            np.testing.assert_array_equal(o, x[e])


@pytest.mark.parametrize("layout, want", [("FHW", "HW"), (None, ""), ("F", "error")])
def test_layout(layout, want):
    batch = _sequences()
    if want == "error":
        batch = [x.reshape(len(x), -1)[:, 0] for x in batch]
        with pytest.raises(PipelineError, match="Input must have at least two dimensions"):
            run_layouts(lambda fn, x: fn.element_extract(x, element_map=[0]), [batch], [layout])
        return
    _, got = run_layouts(lambda fn, x: fn.element_extract(x, element_map=[1]), [batch],
                         [layout])
    assert got == want


def test_a_single_output_is_a_node():
    out, _ = run_layouts(lambda fn, x: fn.element_extract(x, element_map=[0]),
                         [_sequences()], ["FHW"])
    assert out[0].shape == (3, 2)


@pytest.mark.parametrize("emap, layout, match", [
    ([0], "HWC", "Input layout must describe a sequence - it must start with 'F', got 'HWC'"),
    ([5], "FHW", "Index `5` from `element_map` is out of bounds for sample with sequence "
                 "length equal `"),
])
def test_run_errors(emap, layout, match):
    with pytest.raises(PipelineError, match=match) as e:
        run_layouts(lambda fn, x: fn.element_extract(x, element_map=emap), [_sequences()],
                    [layout])
    assert "fn.element_extract" in str(e.value)


def test_negative_index_fails_at_build():
    with pytest.raises(RuntimeError, match="Negative indices in `element_map` are not allowed, "
                                           "found: -1"):
        run_layouts(lambda fn, x: fn.element_extract(x, element_map=[-1]), [_sequences()])


@pytest.mark.oracle
def test_matches_dali():
    pytest.importorskip("nvidia.dali")
    batch = _sequences(np.int16)
    for emap in ([0], [2, 1]):
        def build(fn, x, m=emap):
            out = fn.element_extract(x, element_map=m)
            return tuple(out) if isinstance(out, list) else out
        ours = run_op(build, [batch], layouts=["FHW"])
        theirs = run_op(build, [batch], layouts=["FHW"], real=True)
        for a, b in zip(ours, theirs, strict=True):
            for o, t in zip(a, b, strict=True):
                assert o.dtype == t.dtype
                np.testing.assert_array_equal(o, t)
