"""fn.transpose: permuted dimensions and layouts."""


import numpy as np
import pytest
from pipeline_utils import run_one as run

from dali._executor.errors import PipelineError

X = np.arange(24, dtype=np.int16).reshape(2, 3, 4)


@pytest.mark.parametrize("kwargs, layout, perm, want_layout", [
    ({"perm": [2, 0, 1]}, "HWC", (2, 0, 1), "CHW"),
    ({"perm": [2, 0, 1]}, None, (2, 0, 1), ""),
    ({"perm": [2, 0, 1], "transpose_layout": False}, "HWC", (2, 0, 1), "HWC"),
    ({"perm": [1, 0, 2], "output_layout": "ABC"}, "HWC", (1, 0, 2), "ABC"),
    ({"perm": [1, 0, 2], "output_layout": "ABC"}, None, (1, 0, 2), "ABC"),
    ({}, "HWC", (2, 1, 0), "CWH")])
def test_transpose(kwargs, layout, perm, want_layout):
    batch = [X, X[:, :2] + 1, X[:0]]
    out, lay = run(lambda fn, x: fn.transpose(x, **kwargs), batch, layout=layout)
    assert lay == want_layout
    for o, x in zip(out, batch, strict=True):
        np.testing.assert_array_equal(o, x.transpose(perm))


@pytest.mark.parametrize("x", [np.array([[True, False]]), np.ones((2, 3), np.float16)])
def test_other_types(x):
    out, _ = run(lambda fn, t: fn.transpose(t, perm=[1, 0]), [x])
    np.testing.assert_array_equal(out[0], x.T)


def test_bad_permutation_fails_at_build():
    with pytest.raises(RuntimeError, match="Invalid permutation"):
        run(lambda fn, x: fn.transpose(x, perm=[0, 0, 1]), [X])


@pytest.mark.parametrize("kwargs, match", [
    ({"perm": [1, 0]}, r"dimensionality \(3\) than the length of the permutation \(2\)"),
    ({"perm": [1, 0, 2], "output_layout": "AB"}, "has 2 dimensions")])
def test_mismatch_fails_at_run(kwargs, match):
    with pytest.raises(PipelineError, match=match):
        run(lambda fn, x: fn.transpose(x, **kwargs), [X], layout="HWC")


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"perm": [2, 0, 1]}, {}, {"perm": [1, 0, 2], "transpose_layout": False}])
def test_matches_dali(kwargs):
    ours = run(lambda fn, x: fn.transpose(x, **kwargs), [X, X + 1], layout="HWC")
    theirs = run(lambda fn, x: fn.transpose(x, **kwargs), [X, X + 1], layout="HWC", real=True)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[0], theirs[0], strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("perm", [[2, 0, 1], [1, 2, 0], [1, 0, 2]])
def test_images_uniform_and_ragged(perm):
    rng = np.random.default_rng(5)
    uniform = [rng.integers(0, 256, (120, 90, 3), np.uint8) for _ in range(4)]
    ragged = [rng.integers(0, 256, (120 - i, 90 + 3 * i, 3), np.uint8) for i in range(4)]
    for batch in (uniform, ragged):
        out, _ = run(lambda fn, x, p=perm: fn.transpose(x, perm=p), batch, layout="HWC")
        for o, x in zip(out, batch, strict=True):
            np.testing.assert_array_equal(o, x.transpose(perm))
