"""fn.warp_affine: matrix sources, inverse_map, size, borders and types.

Values are checked against the float64 NumPy warp of warp_utils (uint8 within 1 on a few
rounding-boundary pixels, float within 1e-3) and against outputs recorded from real DALI.
"""

import numpy as np
import pytest
from warp_utils import assert_close, assert_matches_golden, run, warp_reference

from dali import types
from dali._executor.errors import PipelineError

RNG = np.random.default_rng(22)
IMGS = [RNG.integers(0, 256, (20, 30, 3), dtype=np.uint8),
        RNG.integers(0, 256, (17, 9, 3), dtype=np.uint8)]
# Irrational-looking coefficients put no output pixel exactly on an input pixel boundary, where
# float32 and the float64 reference could pick different neighbours.
M = [0.9134, 0.2172, 1.3127, -0.1031, 1.0873, -2.2319]
M2 = [1.4713, 0.3127, -4.1093, 0.4127, 0.6913, 3.0731]


@pytest.mark.parametrize("matrix", [M, M2, [1, 0, 0.5, 0, 1, 0]])
@pytest.mark.parametrize("nn", [False, True])
@pytest.mark.parametrize("fill", [None, 7.0])
def test_against_numpy(matrix, nn, fill):
    kwargs = {"matrix": matrix, "interp_type": types.INTERP_NN if nn else types.INTERP_LINEAR}
    if fill is not None:
        kwargs["fill_value"] = fill
    out, lay = run(lambda fn, x: fn.warp_affine(x, **kwargs), IMGS)
    assert lay == "HWC"
    for o, x in zip(out, IMGS, strict=True):
        assert_close(o, warp_reference(x, matrix, x.shape[:2], nn, fill), off=0.01)


def test_pixel_centre_convention():
    """A shift by half a pixel blends neighbours; the last column blends with the fill."""
    x = np.array([[0, 10, 20, 30, 40]], np.float32).reshape(1, 5, 1)
    (o,), _ = run(lambda fn, t: fn.warp_affine(t, matrix=[1, 0, 0.5, 0, 1, 0]), [x])
    assert o.ravel().tolist() == [5, 15, 25, 35, 40]
    (o,), _ = run(lambda fn, t: fn.warp_affine(t, matrix=[1, 0, 0.5, 0, 1, 0], fill_value=-1),
                  [x])
    assert o.ravel().tolist() == [5, 15, 25, 35, 19.5]
    (o,), _ = run(lambda fn, t: fn.warp_affine(t, matrix=[1, 0, 0.5, 0, 1, 0], fill_value=-1,
                                               interp_type=types.INTERP_NN), [x])
    assert o.ravel().tolist() == [10, 20, 30, 40, -1]


def test_fill_value_is_converted_to_the_input_type():
    x = np.array([[0, 1, 2, 3, 255]], np.uint8).reshape(1, 5, 1)
    (o,), _ = run(lambda fn, t: fn.warp_affine(t, matrix=[1, 0, 0.5, 0, 1, 0], fill_value=-3.7,
                                               dtype=types.FLOAT), [x])
    assert o.ravel().tolist() == [0.5, 1.5, 2.5, 129.0, 127.5]


def test_matrix_as_input_and_argument_input():
    mats = [np.array(M, np.float32).reshape(2, 3), np.array(M2, np.float32).reshape(2, 3)]
    want = [warp_reference(x, m, x.shape[:2]) for x, m in zip(IMGS, mats, strict=True)]
    for build in (lambda fn, x, m: fn.warp_affine(x, m),
                  lambda fn, x, m: fn.warp_affine(x, matrix=m),
                  lambda fn, x, m: fn.warp_affine(x, m, matrix=[9, 9, 9, 9, 9, 9])):
        out, _ = run(build, IMGS, mats)
        for o, w in zip(out, want, strict=True):
            assert_close(o, w, off=0.01)


def test_inverse_map_false_inverts():
    fwd = np.array([[0.8, -0.3, 5.0], [0.25, 1.2, -1.0]])
    inv = np.linalg.inv(np.vstack([fwd, [0, 0, 1]]))[:2]
    out, _ = run(lambda fn, x: fn.warp_affine(x, matrix=fwd.ravel().tolist(), inverse_map=False,
                                              fill_value=0), IMGS)
    for o, x in zip(out, IMGS, strict=True):
        assert_close(o, warp_reference(x, inv, x.shape[:2], fill=0.0), off=0.01)


def test_size_and_per_sample_size():
    out, _ = run(lambda fn, x: fn.warp_affine(x, matrix=M, size=[10.5, 7.5]), IMGS)
    assert [o.shape for o in out] == [(11, 8, 3), (11, 8, 3)]
    sizes = [np.array([5, 6], np.float32), np.array([7, 8], np.float32)]
    out, _ = run(lambda fn, x, s: fn.warp_affine(x, matrix=M, size=s), IMGS, sizes)
    assert [o.shape for o in out] == [(5, 6, 3), (7, 8, 3)]
    assert_close(out[1], warp_reference(IMGS[1], M, (7, 8)), off=0.005)


@pytest.mark.parametrize("dtype, out_type", [
    (np.int16, types.FLOAT), (np.int32, None), (np.float32, types.INT16),
    (np.float32, types.INT32), (np.float32, types.UINT8)])
def test_types(dtype, out_type):
    x = (IMGS[0].astype(np.float64) * 3 - 300).astype(dtype)
    kwargs = {} if out_type is None else {"dtype": out_type}
    (o,), _ = run(lambda fn, t: fn.warp_affine(t, matrix=M, **kwargs), [x])
    want_type = {None: dtype, types.FLOAT: np.float32, types.INT16: np.int16,
                 types.INT32: np.int32, types.UINT8: np.uint8}[out_type]
    assert_close(o, warp_reference(x, M, x.shape[:2], dtype=want_type), off=0.01, atol=0.02)


@pytest.mark.parametrize("kwargs, x, layout, exc, match", [
    ({}, IMGS, "HWC", PipelineError, "`matrix` argument must be provided"),
    ({"matrix": [1, 0, 0, 1]}, IMGS, "HWC", PipelineError, "6 elements"),
    ({"matrix": M, "interp_type": types.INTERP_CUBIC}, IMGS, "HWC", PipelineError,
     "Only nearest and linear"),
    ({"matrix": [0, 0, 0, 0, 0, 0], "inverse_map": False}, IMGS, "HWC", PipelineError,
     "singular"),
    ({"matrix": M}, [np.zeros((2, 3, 1), np.uint16)], "HWC", PipelineError,
     "uint16 -> uint16"),
    ({"matrix": M}, [np.zeros((2, 3), np.uint8)], "", PipelineError, "number of dimensions 2"),
    ({"matrix": M, "size": [0, 3]}, IMGS, "HWC", PipelineError, "must be positive")])
def test_errors(kwargs, x, layout, exc, match):
    with pytest.raises(exc, match=match):
        run(lambda fn, t: fn.warp_affine(t, **kwargs), x, layout=layout)


def test_empty_input():
    (o,), _ = run(lambda fn, t: fn.warp_affine(t, matrix=M), [np.zeros((0, 5, 3), np.uint8)])
    assert o.shape == (0, 5, 3)


@pytest.mark.parametrize("name", ["warp", "warpf"])
def test_golden(name):
    """Outputs recorded from real DALI by tests/goldens/make_geometry.py."""
    assert_matches_golden("warp_affine", name)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"matrix": M}, {"matrix": M, "fill_value": 5.0},
    {"matrix": [1.5, 0.3, -4.0, 0.4, 0.7, 3.0], "size": [25, 33]},
    {"matrix": [0.8, -0.3, 5.0, 0.25, 1.2, -1.0], "inverse_map": False}])
def test_matches_dali(kwargs):
    ours = run(lambda fn, x: fn.warp_affine(x, **kwargs), IMGS)
    theirs = run(lambda fn, x: fn.warp_affine(x, **kwargs), IMGS, real=True)
    for a, b in zip(ours[0], theirs[0], strict=True):
        assert_close(a, b, off=0.005)


def test_far_away_positions_give_the_border():
    x = np.arange(12, dtype=np.float32).reshape(3, 4, 1)
    (o,), _ = run(lambda fn, t: fn.warp_affine(t, matrix=[1, 0, 1e38, 0, 1, 0]), [x])
    np.testing.assert_array_equal(o, np.repeat(x[:, -1:], 4, axis=1))
    (o,), _ = run(lambda fn, t: fn.warp_affine(t, matrix=[1, 0, -1e38, 0, 1, 0], fill_value=5),
                  [x])
    assert (o == 5).all()
