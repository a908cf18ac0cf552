"""fn.resize_crop_mirror and fn.fast_resize_crop_mirror: the fused geometry against fn.resize
of the window's source region, goldens from real DALI, and errors."""

import contextlib
import math

import numpy as np
import pytest
import transforms_utils as tu
from golden_cases import assert_near_resampled, case_indices, load_case

GOLDEN = "resize_crop_mirror.npz"


@pytest.mark.parametrize("k", case_indices(GOLDEN))
def test_golden(k):
    case, args, layouts, batch, expected = load_case(GOLDEN, k, 2, ("interp_type", "dtype"))
    layout = layouts[case["input"]]
    with pytest.warns(DeprecationWarning) if case["op"].startswith("fast") \
            else contextlib.nullcontext():
        out, out_layout = tu.run(lambda fn, x: getattr(fn, case["op"])(x, **args), [batch],
                                 [layout])
    assert out_layout == layout
    for o, e in zip(out, expected, strict=True):
        assert_near_resampled(o, e)


def window(out, crop, pos, rounding):
    start = pos * (out - crop)
    return math.trunc(start + math.copysign(0.5, start)) if rounding == "round" \
        else math.trunc(start)


@pytest.mark.parametrize("seed", range(6))
def test_same_as_resize_of_the_window(seed):
    """Resize to (oh, ow), crop at pos, mirror == resize of the window's source region."""
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(10, 60, 2))
    img = rng.integers(0, 256, (h, w, 3)).astype(np.uint8)
    oh, ow = (int(v) for v in rng.integers(5, 50, 2))
    ch, cw = (int(v) for v in rng.integers(1, 60, 2))
    px, py = (float(v) for v in rng.uniform(0, 1, 2))
    mirror = int(rng.integers(0, 4))
    rounding = ["round", "truncate"][seed % 2]
    out, _ = tu.run(lambda fn, x: fn.resize_crop_mirror(
        x, size=[oh, ow], crop=[ch, cw], crop_pos_x=px, crop_pos_y=py, mirror=mirror,
        rounding=rounding), [[img]], ["HWC"])
    y0, x0 = window(oh, ch, py, rounding), window(ow, cw, px, rounding)
    sy, sx = h / oh, w / ow
    start, end = [y0 * sy, x0 * sx], [(y0 + ch) * sy, (x0 + cw) * sx]
    if mirror & 1:
        start[1], end[1] = end[1], start[1]
    if mirror & 2:
        start[0], end[0] = end[0], start[0]
    ref, _ = tu.run(lambda fn, x: fn.resize(x, size=[ch, cw], roi_start=start, roi_end=end),
                    [[img]], ["HWC"])
    assert_near_resampled(out[0], ref[0])      # the same region up to float rounding of its ends


def test_without_crop_is_resize():
    img = np.random.default_rng(1).integers(0, 256, (30, 41, 3)).astype(np.uint8)
    out, _ = tu.run(lambda fn, x: fn.resize_crop_mirror(x, resize_shorter=17), [[img]],
                    ["HWC"])
    ref, _ = tu.run(lambda fn, x: fn.resize(x, resize_shorter=17), [[img]], ["HWC"])
    np.testing.assert_array_equal(out[0], ref[0])


def test_per_sample_mirror_and_crop():
    rng = np.random.default_rng(2)
    imgs = [rng.integers(0, 256, (20, 24, 3)).astype(np.uint8) for _ in range(2)]
    mirror = [np.int32(1), np.int32(0)]
    crop = [np.float32([10, 12]), np.float32([8, 8])]
    out, _ = tu.run(lambda fn, x, m, c: fn.resize_crop_mirror(x, size=[20, 24], mirror=m,
                                                              crop=c), [imgs, mirror, crop],
                    ["HWC"])
    plain, _ = tu.run(lambda fn, x, c: fn.resize_crop_mirror(x, size=[20, 24], crop=c),
                      [imgs, crop], ["HWC"])
    assert out[0].shape == (10, 12, 3) and out[1].shape == (8, 8, 3)
    np.testing.assert_array_equal(out[0], plain[0][:, ::-1])
    np.testing.assert_array_equal(out[1], plain[1])


def test_fast_alias_has_no_antialias_by_default():
    img = np.random.default_rng(3).integers(0, 256, (40, 40, 3)).astype(np.uint8)
    with pytest.warns(DeprecationWarning, match="fast_resize_crop_mirror"):
        fast, _ = tu.run(lambda fn, x: fn.fast_resize_crop_mirror(x, size=[10, 10]), [[img]],
                         ["HWC"])
    ref, _ = tu.run(lambda fn, x: fn.resize_crop_mirror(x, size=[10, 10], antialias=False),
                    [[img]], ["HWC"])
    np.testing.assert_array_equal(fast[0], ref[0])


@pytest.mark.parametrize("kwargs, message", [
    ({"size": [5, 5], "rounding": "floor"}, 'Invalid rounding mode: "floor"'),
    ({"size": [5, 5], "crop": [2, 2], "crop_w": 2}, '"crop" and "crop_w", "crop_h", "crop_d" '
                                                    "are mutually exclusive"),
    ({"size": [5, 5], "crop": [2, 2, 2]}, "`crop` must have 2 values"),
    ({"size": [5, 5], "crop": [-2, 2]}, "the crop window must be finite and non-negative"),
    ({"crop": [2, 2]}, "give the output size in exactly one way"),
])
def test_errors(kwargs, message):
    img = np.zeros((8, 8, 3), np.uint8)
    with pytest.raises(Exception, match="resize_crop_mirror") as e:
        tu.run(lambda fn, x: fn.resize_crop_mirror(x, **kwargs), [[img]], ["HWC"])
    assert message in str(e.value)


@pytest.mark.oracle
def test_oracle_random_windows():
    rng = np.random.default_rng(4)
    imgs = [rng.integers(0, 256, (int(h), int(w), 3)).astype(np.uint8)
            for h, w in rng.integers(12, 70, (3, 2))]
    pos = [np.float32(v) for v in rng.uniform(0, 1, 3)]

    def build(fn, x, p):
        return fn.resize_crop_mirror(x, resize_longer=33, crop=[21, 19], crop_pos_x=p,
                                     crop_pos_y=0.25, mirror=1)
    ours, _ = tu.run(build, [imgs, pos], ["HWC"])
    real, _ = tu.run(build, [imgs, pos], ["HWC"], real=True)
    for o, r in zip(ours, real, strict=True):
        assert_near_resampled(o, r)
