"""fn.rotate: output size, direction, interpolation, borders, types and layouts.

Values are checked against a float64 NumPy warp (exact but for rounding: linear results may
differ by 1 on uint8 and by 1e-3 on float where a value sits on a rounding boundary) and against
outputs recorded from real DALI (tests/goldens/geometry.npz: bit-exact except for at most a
handful of pixels off by one).
"""

import importlib
import math

import numpy as np
import pytest
from warp_utils import assert_close, assert_matches_golden, run, warp_reference

from dali import types
from dali._executor.errors import PipelineError
from dali.ops.geometry import rotate

RNG = np.random.default_rng(21)
IMGS = [RNG.integers(0, 256, (20, 30, 3), dtype=np.uint8),
        RNG.integers(0, 256, (17, 9, 1), dtype=np.uint8)]


def rotation(angle, in_hw, out_hw):
    """float64 output->input matrix of a counter-clockwise rotation about the centres."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    a = np.array([[c, -s], [s, c]])
    t = np.array([in_hw[1] / 2, in_hw[0] / 2]) - a @ np.array([out_hw[1] / 2, out_hw[0] / 2])
    return np.hstack([a, t[:, None]])


def test_matrix_cosine_and_sine_are_correctly_rounded():
    # as DALI's cosf/sinf of the float32 radians; not numpy's float32 approximations
    angles = np.linspace(-400, 400, 3001)
    m = rotate.rotation_matrices(angles, np.full((len(angles), 2), 8), np.full((len(angles), 2), 8))
    t = angles.astype(np.float32) * np.float32(math.pi / 180)
    assert m[:, 0].tolist() == [float(np.float32(math.cos(float(v)))) for v in t]
    assert m[:, 3].tolist() == [float(np.float32(math.sin(float(v)))) for v in t]


@pytest.mark.parametrize("hw, angle, out", [
    ((6, 8), 45, (10, 10)), ((6, 8), 0, (6, 8)), ((6, 8), 90, (8, 6)), ((6, 8), 1, (8, 10)),
    ((5, 8), 45, (10, 11)), ((5, 8), 135, (11, 10)), ((5, 8), 225, (11, 10)),
    ((5, 8), -45, (10, 11)), ((10, 3), 60, (9, 12)), ((100, 200), 10, (134, 216)),
    ((100, 200), -10.5, (136, 216)), ((101, 37), 45, (99, 99)), ((35, 53), 89.99999, (53, 35)),
    ((12, 30), -346.06103515625, (20, 32)), ((51, 41), 120, (61, 65)), ((0, 0), 30, (0, 0))])
def test_rotated_size(hw, angle, out):
    """The bounding box as DALI computes it: ceil(extent - 0.01), then the parity fix."""
    assert rotate.rotated_size(hw, angle) == out


@pytest.mark.parametrize("angle", [10.0, -37.0, 90.0, 200.0, 1.5])
@pytest.mark.parametrize("nn", [False, True])
@pytest.mark.parametrize("fill", [None, 0.0])
def test_against_numpy(angle, nn, fill):
    kwargs = {"angle": angle, "interp_type": types.INTERP_NN if nn else types.INTERP_LINEAR}
    if fill is not None:
        kwargs["fill_value"] = fill
    out, lay = run(lambda fn, x: fn.rotate(x, **kwargs), IMGS)
    assert lay == "HWC"
    for o, x in zip(out, IMGS, strict=True):
        out_hw = rotate.rotated_size(x.shape[:2], angle)
        want = warp_reference(x, rotation(angle, x.shape[:2], out_hw), out_hw, nn, fill)
        assert_close(o, want, off=0 if nn else 0.01)


def test_quarter_turn_is_rot90():
    out, _ = run(lambda fn, x: fn.rotate(x, angle=90, interp_type=types.INTERP_NN), IMGS)
    for o, x in zip(out, IMGS, strict=True):
        np.testing.assert_array_equal(o, np.rot90(x))
    out, _ = run(lambda fn, x: fn.rotate(x, angle=-90, interp_type=types.INTERP_NN), IMGS)
    np.testing.assert_array_equal(out[0], np.rot90(IMGS[0], -1))


def test_size_keep_size_and_per_sample_angle():
    out, _ = run(lambda fn, x: fn.rotate(x, angle=30, keep_size=True), IMGS)
    assert [o.shape for o in out] == [x.shape for x in IMGS]
    out, _ = run(lambda fn, x: fn.rotate(x, angle=30, size=[11.5, 7.4], keep_size=True), IMGS)
    assert [o.shape[:2] for o in out] == [(12, 7), (12, 7)]
    angles = [np.float32(90.0), np.float32(-90.0)]
    out, _ = run(lambda fn, x, a: fn.rotate(x, angle=a, interp_type=types.INTERP_NN), IMGS,
                 angles)
    np.testing.assert_array_equal(out[0], np.rot90(IMGS[0]))
    np.testing.assert_array_equal(out[1], np.rot90(IMGS[1], -1))


def test_random_angle_as_in_getting_started():
    """`angle=fn.random.uniform(range=(-10, 10))`: each sample is rotated by its own angle."""
    def build(fn, x):
        angle = fn.random.uniform(range=(-10.0, 10.0))
        return fn.rotate(x, angle=angle, fill_value=0), angle

    pkg = importlib.import_module("dali")

    @pkg.pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=5)
    def pipe():
        return build(pkg.fn, pkg.fn.external_source(source=lambda: IMGS, layout="HWC"))

    p = pipe()
    p.build()
    rotated, angles = p.run()
    for o, x, a in zip(rotated, IMGS, angles, strict=True):
        a = float(np.array(a))
        assert -10 <= a < 10
        out_hw = rotate.rotated_size(x.shape[:2], a)
        want = warp_reference(x, rotation(a, x.shape[:2], out_hw), out_hw, fill=0.0)
        assert_close(np.array(o), want, off=0.01)


def test_types_and_sequences():
    x = IMGS[0].astype(np.float32) * 1.5 - 20
    (o,), _ = run(lambda fn, t: fn.rotate(t, angle=33, dtype=types.UINT8, fill_value=-5), [x])
    out_hw = rotate.rotated_size(x.shape[:2], 33)
    want = warp_reference(x, rotation(33, x.shape[:2], out_hw), out_hw, fill=-5.0,
                          dtype=np.uint8)
    assert_close(o, want, off=0.01)
    seq = np.stack([IMGS[0], IMGS[0][::-1]])
    (o,), lay = run(lambda fn, t: fn.rotate(t, angle=90, interp_type=types.INTERP_NN), [seq],
                    layout="FHWC")
    assert lay == "FHWC"
    np.testing.assert_array_equal(o, np.rot90(seq, axes=(1, 2)))
    (o,), lay = run(lambda fn, t: fn.rotate(t, angle=90), [IMGS[0].astype(np.int16)],
                    layout="")
    assert lay == "HWC" and o.dtype == np.int16


def test_empty_image_is_filled():
    (o,), _ = run(lambda fn, t: fn.rotate(t, angle=10, fill_value=3),
                  [np.zeros((0, 5, 3), np.uint8)])
    assert o.shape == (2, 5, 3) and (o == 3).all()


@pytest.mark.parametrize("kwargs, x, layout, exc, match", [
    ({"angle": 10, "interp_type": types.INTERP_CUBIC}, IMGS, "HWC", PipelineError,
     "Only nearest and linear"),
    ({"angle": 10}, [np.zeros((4, 5, 3), np.int8)], "HWC", PipelineError,
     "Unsupported input/output types"),
    ({"angle": 10, "dtype": types.INT16}, IMGS, "HWC", PipelineError,
     "uint8 -> int16"),
    ({"angle": 10}, [np.zeros((3, 4, 5), np.uint8)], "CHW", PipelineError,
     'layout "CHW" does not match'),
    ({"angle": 10, "size": [0, 5]}, IMGS, "HWC", PipelineError, "must be positive"),
    ({"angle": 10, "size": [5]}, IMGS, "HWC", PipelineError, "same number of dimensions"),
    ({"angle": 10, "axis": [0, 0, 1]}, [np.zeros((2, 4, 5, 1), np.uint8)], "DHWC",
     PipelineError, "volumetric"),
    ({}, IMGS, "HWC", RuntimeError, "required arguments")])
def test_errors(kwargs, x, layout, exc, match):
    with pytest.raises(exc, match=match):
        run(lambda fn, t: fn.rotate(t, **kwargs), x, layout=layout)


def test_output_dtype_is_a_deprecated_alias():
    with pytest.warns(DeprecationWarning, match="output_dtype"):
        (o, _), _ = run(lambda fn, t: fn.rotate(t, angle=10, output_dtype=types.FLOAT), IMGS)
    assert o.dtype == np.float32


@pytest.mark.parametrize("name", ["rotate", "rotatef"])
def test_golden(name):
    """Outputs recorded from real DALI by tests/goldens/make_geometry.py."""
    assert_matches_golden("rotate", name)


@pytest.mark.oracle
@pytest.mark.parametrize("angle", [10.0, 45.0, -135.0, 33.3])
@pytest.mark.parametrize("kwargs", [{"fill_value": 0}, {"interp_type": "INTERP_NN"}])
def test_matches_dali(angle, kwargs):
    def build(fn, x, mod):
        kw = {k: getattr(mod, v) if isinstance(v, str) else v for k, v in kwargs.items()}
        return fn.rotate(x, angle=angle, **kw)
    real_types = importlib.import_module("nvidia.dali.types")
    ours = run(lambda fn, x: build(fn, x, types), IMGS)
    theirs = run(lambda fn, x: build(fn, x, real_types), IMGS, real=True)
    for a, b in zip(ours[0], theirs[0], strict=True):
        assert_close(a, b, off=0.005)
