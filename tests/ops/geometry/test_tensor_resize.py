"""fn.tensor_resize (and fn.experimental.tensor_resize): goldens from real DALI, a NumPy
reference for 1-D linear resampling, agreement with fn.resize on images, and errors."""


import numpy as np
import pytest
import transforms_utils as tu
from golden_cases import assert_near_resampled, case_indices, load_case

GOLDEN = "tensor_resize.npz"


@pytest.mark.parametrize("k", case_indices(GOLDEN))
def test_golden(k):
    _, args, _, batch, expected = load_case(GOLDEN, k, 2, ("interp_type",))
    out, _ = tu.run(lambda fn, x: fn.tensor_resize(x, **args), [batch])
    for o, e in zip(out, expected, strict=True):
        assert_near_resampled(o, e)


@pytest.mark.parametrize("seed", range(6))
def test_1d_linear_upscale_against_numpy(seed):
    """Upscaling with the linear filter samples the input at (i + 0.5) * n / m - 0.5, the
    edges clamped."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 30)), int(rng.integers(31, 80))
    x = rng.random(n).astype(np.float32)
    out, _ = tu.run(lambda fn, v: fn.tensor_resize(v, sizes=[m]), [[x]])
    centres = (np.arange(m) + 0.5) * n / m - 0.5
    np.testing.assert_allclose(out[0], np.interp(centres, np.arange(n), x), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("kwargs, resize_kwargs", [
    ({"sizes": [9, 14], "axis_names": "HW"}, {"size": [9, 14]}),
    ({"sizes": [20, 0], "axes": [0, 1], "mode": "stretch"}, {"size": [20, 0], "mode": "stretch"}),
    ({"sizes": [8, 11], "axes": [0, 1], "roi_start": [2, 3], "roi_end": [20, 1]},
     {"size": [8, 11], "roi_start": [2, 3], "roi_end": [20, 1]}),
])
def test_images_resize_as_fn_resize(kwargs, resize_kwargs):
    rng = np.random.default_rng(1)
    imgs = [rng.integers(0, 256, (24, 31, 3)).astype(np.uint8),
            rng.integers(0, 256, (17, 12, 3)).astype(np.uint8)]
    out, layout = tu.run(lambda fn, x: fn.tensor_resize(x, **kwargs), [imgs], ["HWC"])
    ref, _ = tu.run(lambda fn, x: fn.resize(x, **resize_kwargs), [imgs], ["HWC"])
    assert layout == "HWC"
    for o, r in zip(out, ref, strict=True):
        np.testing.assert_array_equal(o, r)


def test_unlisted_axes_count_as_kept_in_default_mode():
    """A size of 0 takes the geometric mean of the other axes' scales, the unlisted channel
    axis (scale 1) included, as in DALI: 17 * sqrt(5 / 10) = 12.02."""
    x = np.zeros((10, 17, 3), np.uint8)
    out, _ = tu.run(lambda fn, v: fn.tensor_resize(v, sizes=[5, 0], axes=[0, 1]), [[x]])
    assert out[0].shape == (5, 12, 3)


def test_experimental_alias_warns():
    x = np.arange(10, dtype=np.float32)
    with pytest.warns(DeprecationWarning, match="experimental.tensor_resize"):
        out, _ = tu.run(lambda fn, v: fn.experimental.tensor_resize(v, scales=[0.5]), [[x]])
    assert out[0].shape == (5,)


@pytest.mark.parametrize("kwargs, x, message", [
    ({}, np.zeros((4, 4), np.float32), "Need one of ``scales`` or ``sizes``, but not both"),
    ({"sizes": [2], "scales": [2]}, np.zeros((4, 4), np.float32), "Need one of"),
    ({"sizes": [2], "axes": [0], "axis_names": "H"}, np.zeros((4, 4), np.float32),
     "mutually exclusive"),
    ({"scales": [2], "mode": "not_larger"}, np.zeros((4, 4), np.float32),
     "Providing ``scales`` is incompatible with not-smaller or not-larger modes"),
    ({"sizes": [2], "axes": [3]}, np.zeros((4, 4), np.float32), "Axis index 3 out of range"),
    ({"sizes": [2, 3, 4]}, np.zeros((4, 4), np.float32), "must have one value or 2"),
    ({"sizes": [2], "size_rounding": "floor"}, np.zeros((4, 4), np.float32),
     'Invalid size_rounding: "floor"'),
    ({"sizes": [2, 2, 2, 2]}, np.zeros((4, 4, 4, 4), np.float32),
     "at most 3 consecutive dimensions"),
])
def test_errors(kwargs, x, message):
    with pytest.raises(RuntimeError, match="tensor_resize") as e:
        tu.run(lambda fn, v: fn.tensor_resize(v, **kwargs), [[x]])
    assert message in str(e.value)


@pytest.mark.oracle
def test_oracle_per_sample_sizes():
    rng = np.random.default_rng(2)
    xs = [rng.random((int(a), int(b), 2)).astype(np.float32)
          for a, b in rng.integers(3, 30, (3, 2))]
    sizes = [np.float32(s) for s in rng.integers(2, 40, (3, 2))]
    ours, _ = tu.run(lambda fn, x, s: fn.tensor_resize(x, sizes=s, axes=[0, 1]), [xs, sizes])
    real, _ = tu.run(lambda fn, x, s: fn.tensor_resize(x, sizes=s, axes=[0, 1]), [xs, sizes],
                     real=True)
    for o, r in zip(ours, real, strict=True):
        assert_near_resampled(o, r)
