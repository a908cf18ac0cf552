"""fn.grid_mask: the masked pixels (tile, ratio, angle, shifts) against a float32 NumPy
reference, DALI's goldens and real DALI; per-sample arguments, types and errors."""

import numpy as np
import pytest
import slicing_goldens
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

F32 = np.float32


def reference(x, tile=100, ratio=0.5, angle=0.0, shift_x=0.0, shift_y=0.0):
    """DALI's grid, in float32 and its order of operations."""
    h, w = x.shape[:2]
    ca, sa = F32(np.cos(F32(angle))) / F32(tile), F32(np.sin(F32(angle))) / F32(tile)
    sx, sy = F32(shift_x) / F32(tile), F32(shift_y) / F32(tile)
    ys, xs = np.mgrid[0:h, 0:w].astype(F32)
    fx = -sx + ys * -sa + xs * ca
    fy = -sy + ys * ca + xs * sa
    keep = ((fx - np.floor(fx)) >= F32(ratio)) | ((fy - np.floor(fy)) >= F32(ratio))
    return np.where(keep[..., None], x, 0).astype(x.dtype)


@pytest.mark.parametrize("k, kwargs, layout", slicing_goldens.cases("grid_mask"))
def test_goldens(k, kwargs, layout):
    out, expected = slicing_goldens.replay("grid_mask", k, kwargs, layout)
    for o, e in zip(out, expected, strict=True):
        assert o.dtype == e.dtype
        np.testing.assert_array_equal(o, e)


@pytest.mark.parametrize("seed", range(12))
def test_random_parameters_against_numpy(seed):
    rng = np.random.default_rng(seed)
    dtype = [np.uint8, np.int16, np.int32, np.float32][seed % 4]
    xs = [(rng.random((int(rng.integers(1, 60)), int(rng.integers(1, 60)),
                       int(rng.integers(1, 5)))) * 100 + 1).astype(dtype) for _ in range(3)]
    kwargs = {"tile": int(rng.integers(1, 30)), "ratio": float(rng.uniform(-0.1, 1.1)),
              "angle": float(rng.uniform(-4, 4)), "shift_x": float(rng.uniform(-50, 50)),
              "shift_y": float(rng.uniform(-50, 50))}
    out = run_op(lambda fn, x: fn.grid_mask(x, **kwargs), [xs], layouts=["HWC"])[0]
    for o, x in zip(out, xs, strict=True):
        assert o.dtype == dtype
        np.testing.assert_array_equal(o, reference(x, **kwargs))


def test_per_sample_arguments():
    rng = np.random.default_rng(1)
    xs = [rng.integers(1, 256, (30, 40, 3), dtype=np.uint8) for _ in range(2)]
    tiles = [np.int32(7), np.int32(12)]
    angles = [F32(0.3), F32(-1.0)]
    out = run_op(lambda fn, x, t, a: fn.grid_mask(x, tile=t, angle=a, ratio=0.4),
                 [xs, tiles, angles], layouts=["HWC", None, None])[0]
    for o, x, t, a in zip(out, xs, tiles, angles, strict=True):
        np.testing.assert_array_equal(o, reference(x, t, 0.4, a))


def test_large_images_in_bands_on_a_pool():
    x = [np.full((700, 500, 3), 9, np.uint8)]
    (out,) = run_op(lambda fn, a: fn.grid_mask(a, tile=33, angle=0.2), [x], layouts=["HWC"],
                    num_threads=2)[0]
    np.testing.assert_array_equal(out, reference(x[0], 33, angle=0.2))


@pytest.mark.parametrize("x, layout, kwargs, message", [
    (np.ones((4, 4, 3), np.float16), "HWC", {}, "Unsupported input type: float16"),
    (np.ones((4, 4, 3), np.uint8), "HWC", {"tile": 0}, "Tile argument must be positive"),
    (np.ones((3, 4, 4), np.uint8), "CHW", {},
     'The layout "CHW" does not match any of the allowed layouts'),
])
def test_errors(x, layout, kwargs, message):
    with pytest.raises(PipelineError, match=f"fn.grid_mask: {message}"):
        run_op(lambda fn, a: fn.grid_mask(a, **kwargs), [[x]], layouts=[layout])


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_matches_dali(seed):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(seed)
    xs = [rng.integers(1, 256, (int(rng.integers(5, 80)), int(rng.integers(5, 80)), 3),
                       dtype=np.uint8) for _ in range(3)]
    kwargs = {"tile": int(rng.integers(2, 40)), "ratio": float(rng.uniform(0, 1)),
              "angle": float(rng.uniform(-3, 3)), "shift_x": float(rng.uniform(-20, 20)),
              "shift_y": float(rng.uniform(-20, 20))}

    def build(fn, x):
        return fn.grid_mask(x, **kwargs)

    ours = run_op(build, [xs], layouts=["HWC"])[0]
    real = run_op(build, [xs], layouts=["HWC"], real=True)[0]
    for o, r in zip(ours, real, strict=True):
        np.testing.assert_array_equal(o, r)
