"""fn.flip: per-sample flips along W, H and D, named by the layout."""


import numpy as np
import pytest
from pipeline_utils import run_one as run
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("layout, kwargs, axes", [
    ("HWC", {}, (1,)), ("HWC", {"horizontal": 0, "vertical": 1}, (0,)),
    ("HWC", {"vertical": 1}, (0, 1)), ("HWC", {"horizontal": 0, "depthwise": 1}, ()),
    ("CHW", {}, (2,)), ("CHW", {"vertical": 1, "horizontal": 0}, (1,)),
    ("FHWC", {"vertical": 1, "depthwise": 1}, (1, 2)), ("FCHW", {}, (3,)),
    ("DHWC", {"horizontal": 0, "depthwise": 1}, (0,)), ("CDHW", {"depthwise": 1}, (1, 3)),
    ("FDHWC", {"vertical": 1, "depthwise": 1, "horizontal": 0}, (1, 2)),
    ("FCDHW", {"horizontal": 2}, (4,)), ("", {"horizontal": -1}, (1,))])
def test_flip(layout, kwargs, axes):
    ndim = len(layout) or 3
    batch = [RNG.integers(0, 100, size=tuple(RNG.integers(1, 5, ndim)), dtype=np.int32)
             for _ in range(3)]
    out, lay = run(lambda fn, x: fn.flip(x, **kwargs), batch, layout=layout)
    assert lay == (layout or "HWC")
    for o, x in zip(out, batch, strict=True):
        np.testing.assert_array_equal(o, np.flip(x, axes) if axes else x)


def test_layoutless_4d_is_a_sequence():
    x = np.arange(24, dtype=np.uint8).reshape(2, 3, 2, 2)
    out, lay = run(lambda fn, t: fn.flip(t, horizontal=0, depthwise=1), [x])
    assert lay == "FHWC"
    np.testing.assert_array_equal(out[0], x)


def test_per_sample_flags():
    batch = [np.arange(6, dtype=np.float64).reshape(2, 3, 1) + k for k in range(3)]
    hor = [np.int32(1), np.int32(0), np.int32(1)]
    ver = [np.int32(0), np.int32(1), np.int32(1)]
    out, _ = run(lambda fn, x, h, v: fn.flip(x, horizontal=h, vertical=v), batch, hor, ver,
                 layout="HWC")
    np.testing.assert_array_equal(out[0], batch[0][:, ::-1])
    np.testing.assert_array_equal(out[1], batch[1][::-1])
    np.testing.assert_array_equal(out[2], batch[2][::-1, ::-1])


def test_flags_of_each_batch():
    # Constant flags are kept between batches of one size; argument inputs are read every batch.
    its = [[RNG.integers(0, 100, (2, 3, 2), dtype=np.uint8) for _ in range(n)] for n in (3, 3, 5)]
    outs = run_op(lambda fn, x: fn.flip(x, vertical=1), [[b] for b in its], iterations=3,
                  batch_size=5, layouts=["HWC"])
    for (out,), batch in zip(outs, its, strict=True):
        assert len(out) == len(batch)
        for o, x in zip(out, batch, strict=True):
            np.testing.assert_array_equal(o, x[::-1, ::-1])
    flags = [[np.int32(k % 2) for k in range(3)], [np.int32(1 - k % 2) for k in range(3)]]
    outs = run_op(lambda fn, x, h: fn.flip(x, horizontal=h), [[its[0], f] for f in flags],
                  iterations=2, layouts=["HWC", None])
    for (out,), f in zip(outs, flags, strict=True):
        for o, x, h in zip(out, its[0], f, strict=True):
            np.testing.assert_array_equal(o, x[:, ::-1] if h else x)


@pytest.mark.parametrize("x, layout, match", [
    (np.zeros((2, 3), np.uint8), "HW", 'layout "HW" does not match'),
    (np.zeros((2, 3), np.uint8), None, "number of dimensions 2"),
    (np.zeros((2, 3, 1), np.bool_), "HWC", "bool is not supported"),
    (np.zeros((2, 3, 1), np.float16), "HWC", "float16 is not supported")])
def test_bad_input(x, layout, match):
    with pytest.raises(PipelineError, match=match):
        run(lambda fn, t: fn.flip(t), [x], layout=layout)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{}, {"vertical": 1}, {"horizontal": 0, "vertical": 1}])
def test_matches_dali(kwargs):
    batch = [RNG.integers(0, 255, (4, 5, 3), dtype=np.uint8) for _ in range(2)]
    ours = run(lambda fn, x: fn.flip(x, **kwargs), batch, layout="HWC")
    theirs = run(lambda fn, x: fn.flip(x, **kwargs), batch, layout="HWC", real=True)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[0], theirs[0], strict=True):
        np.testing.assert_array_equal(a, b)
