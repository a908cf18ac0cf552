"""fn.crop: windows, anchors, out-of-bounds policies, layouts and output types."""

import functools

import numpy as np
import pytest
from pipeline_utils import run_one

from dali import types
from dali._executor.errors import PipelineError

RNG = np.random.default_rng(11)
IMGS = [RNG.integers(0, 256, (20, 30, 3), dtype=np.uint8),
        RNG.integers(0, 256, (17, 9, 3), dtype=np.uint8)]


run = functools.partial(run_one, layout="HWC")


def _anchor(extent, crop, pos, truncate=False):
    a = float(np.float32(pos)) * (extent - crop)
    return int(np.trunc(a)) if truncate else int(np.trunc(a + np.copysign(0.5, a)))


def reference(x, crop_hw, pos_xy=(0.5, 0.5), fill=None, axes=(0, 1), truncate=False):
    """Crop of an image with the window at `axes`; `fill` pads out-of-bounds parts."""
    out_shape = list(x.shape)
    index = [slice(None)] * x.ndim
    anchors = []
    for ax, c, p in zip(axes, crop_hw, pos_xy[::-1], strict=True):
        a = _anchor(x.shape[ax], c, p, truncate)
        anchors.append(a)
        out_shape[ax] = c
    if fill is None:
        for ax, a, c in zip(axes, anchors, crop_hw, strict=True):
            index[ax] = slice(a, a + c)
        return x[tuple(index)]
    out = np.empty(out_shape, x.dtype)
    out[...] = fill
    src, dst = [slice(None)] * x.ndim, [slice(None)] * x.ndim
    for ax, a, c in zip(axes, anchors, crop_hw, strict=True):
        lo, hi = max(a, 0), min(a + c, x.shape[ax])
        src[ax], dst[ax] = slice(lo, hi), slice(lo - a, hi - a)
    out[tuple(dst)] = x[tuple(src)]
    return out


@pytest.mark.parametrize("crop, pos", [
    ((5, 7), (0.5, 0.5)), ((5, 7), (0.3, 0.9)), ((4, 4), (0.0, 1.0)), ((1, 1), (0.77, 0.21)),
    ((17, 9), (0.5, 0.5))])
def test_crop_hwc_and_chw(crop, pos):
    kwargs = {"crop": crop, "crop_pos_x": pos[0], "crop_pos_y": pos[1]}
    out, lay = run(lambda fn, x: fn.crop(x, **kwargs), IMGS)
    assert lay == "HWC"
    for o, x in zip(out, IMGS, strict=True):
        np.testing.assert_array_equal(o, reference(x, crop, pos))
    chw = [np.ascontiguousarray(x.transpose(2, 0, 1)) for x in IMGS]
    out, lay = run(lambda fn, x: fn.crop(x, **kwargs), chw, layout="CHW")
    assert lay == "CHW"
    for o, x in zip(out, chw, strict=True):
        np.testing.assert_array_equal(o, reference(x, crop, pos, axes=(1, 2)))


def test_anchor_rounding():
    """Half-way anchors round away from zero; 0.9 * 15 is just below 13.5 (float32 pos)."""
    x = np.arange(20 * 30, dtype=np.int32).reshape(20, 30, 1)
    for pos, want in ((0.9, 13), (0.3, 5), (0.1, 2), (0.7, 10)):
        (o,), _ = run(lambda fn, t, pos=pos: fn.crop(t, crop=(5, 30), crop_pos_y=pos), [x])
        assert o[0, 0, 0] // 30 == want
    (o,), _ = run(lambda fn, t: fn.crop(t, crop=(5, 30), crop_pos_y=0.3, rounding="truncate"),
                  [x])
    assert o[0, 0, 0] // 30 == 4


def test_crop_h_crop_w_truncate_and_zero_means_whole():
    out, _ = run(lambda fn, x: fn.crop(x, crop_h=8.7, crop_w=3.2), IMGS)
    assert [o.shape for o in out] == [(8, 3, 3), (8, 3, 3)]
    out, _ = run(lambda fn, x: fn.crop(x, crop=(0, 4)), IMGS)
    assert [o.shape for o in out] == [(20, 4, 3), (17, 4, 3)]
    out, _ = run(lambda fn, x: fn.crop(x), IMGS)
    np.testing.assert_array_equal(out[1], IMGS[1])


def test_per_sample_window():
    crops = [np.array([3, 4], np.float32), np.array([10, 2], np.float32)]
    pos = [np.float32(0.0), np.float32(1.0)]
    out, _ = run(lambda fn, x, c, p: fn.crop(x, crop=c, crop_pos_x=p), IMGS, crops, pos)
    np.testing.assert_array_equal(out[0], reference(IMGS[0], (3, 4), (0.0, 0.5)))
    np.testing.assert_array_equal(out[1], reference(IMGS[1], (10, 2), (1.0, 0.5)))


@pytest.mark.parametrize("fill, want", [([7], [7, 7, 7]), ([1, 2, 3], [1, 2, 3]),
                                        ([-1.5, 300, 2.5], [255, 44, 2])])
def test_pad(fill, want):
    out, _ = run(lambda fn, x: fn.crop(x, crop=(25, 40), out_of_bounds_policy="pad",
                                       fill_values=fill), IMGS)
    for o, x in zip(out, IMGS, strict=True):
        np.testing.assert_array_equal(o, reference(x, (25, 40), fill=np.array(want, np.uint8)))


@pytest.mark.parametrize("layout", ["HWC", "CHW"])
def test_pad_some_samples_of_a_batch(layout):
    # windows inside some inputs and over the edge of others; per-channel fill values
    imgs = [RNG.integers(0, 256, s, dtype=np.uint8) for s in ((20, 30, 3), (9, 40, 3),
                                                             (12, 12, 3), (30, 5, 3))]
    if layout == "CHW":
        imgs = [np.ascontiguousarray(x.transpose(2, 0, 1)) for x in imgs]
    axes = (0, 1) if layout == "HWC" else (1, 2)
    kwargs = {"crop": (10, 11), "crop_pos_x": 0.8, "crop_pos_y": 0.1,
              "out_of_bounds_policy": "pad", "fill_values": [4, 5, 6]}
    out, _ = run(lambda fn, x: fn.crop(x, **kwargs), imgs, layout=layout)
    fill = np.array([4, 5, 6], np.uint8).reshape((3,) if layout == "HWC" else (3, 1, 1))
    for o, x in zip(out, imgs, strict=True):
        np.testing.assert_array_equal(o, reference(x, (10, 11), (0.8, 0.1), fill, axes))


def test_pad_negative_anchor_rounds_away_from_zero():
    x = np.arange(10 * 12, dtype=np.uint8).reshape(10, 12, 1)
    for rounding, top, left in (("round", 1, 2), ("truncate", 0, 1)):
        (o,), _ = run(lambda fn, t, r=rounding: fn.crop(t, crop=(11, 15), rounding=r,
                                                         out_of_bounds_policy="pad",
                                                         fill_values=255), [x])
        assert (o[:top] == 255).all() and (o[:, :left] == 255).all()
        np.testing.assert_array_equal(o[top:top + 10, left:left + 12], x)


def test_trim_to_shape():
    out, _ = run(lambda fn, x: fn.crop(x, crop=(25, 4), out_of_bounds_policy="trim_to_shape"),
                 IMGS)
    np.testing.assert_array_equal(out[0], IMGS[0][:, 13:17])
    np.testing.assert_array_equal(out[1], IMGS[1][:, 3:7])


def test_volumes_and_sequences():
    vol = np.arange(4 * 6 * 8 * 2, dtype=np.int16).reshape(4, 6, 8, 2)
    out, lay = run(lambda fn, x: fn.crop(x, crop=(2, 3, 4), crop_pos_z=1.0), [vol],
                   layout="DHWC")
    assert lay == "DHWC"
    np.testing.assert_array_equal(out[0], vol[2:4, 2:5, 2:6])
    out, _ = run(lambda fn, x: fn.crop(x, crop=(3, 4)), [vol], layout="FHWC")
    np.testing.assert_array_equal(out[0], vol[:, 2:5, 2:6])
    # DALI crops F as the depth of a sequence when a depth is given.
    out, _ = run(lambda fn, x: fn.crop(x, crop_d=1, crop_h=3, crop_w=4), [vol], layout="FHWC")
    np.testing.assert_array_equal(out[0], vol[2:3, 2:5, 2:6])
    out, lay = run(lambda fn, x: fn.crop(x, crop=(3, 4)), [vol], layout="")
    assert lay == "DHWC"
    chw = np.ascontiguousarray(vol.transpose(0, 3, 1, 2))
    out, _ = run(lambda fn, x: fn.crop(x, crop=(3, 4)), [chw], layout="FCHW")
    np.testing.assert_array_equal(out[0], chw[:, :, 2:5, 2:6])


def test_output_types():
    x = np.array([-2.5, -0.5, 0.5, 1.5, 2.5, 255.5, 300, np.nan, np.inf, 70000],
                 np.float32).reshape(1, 10, 1)
    (o,), _ = run(lambda fn, t: fn.crop(t, crop=(1, 10), dtype=types.UINT8), [x])
    assert o.dtype == np.uint8
    assert o.ravel().tolist() == [0, 0, 0, 1, 2, 255, 255, 0, 255, 255]
    (o,), _ = run(lambda fn, t: fn.crop(t, crop=(1, 10), dtype=types.FLOAT16), [x])
    assert o.ravel()[-2:].tolist() == [65504.0, 65504.0]
    out, _ = run(lambda fn, t: fn.crop(t, crop=(2, 2), dtype=types.FLOAT), IMGS)
    np.testing.assert_array_equal(out[1], reference(IMGS[1], (2, 2)).astype(np.float32))
    with pytest.warns(DeprecationWarning, match="output_dtype"):
        out, _ = run(lambda fn, t: fn.crop(t, crop=(2, 2), output_dtype=types.FLOAT), IMGS)
    assert out[0].dtype == np.float32


@pytest.mark.parametrize("kwargs, match", [
    ({"crop_h": 3}, "must be provided together"),
    ({"crop": (3, 3), "crop_h": 4, "crop_w": 4}, "not compatible"),
    ({"crop": (3,)}, "2 or 3 elements"),
    ({"crop": (3, 3), "out_of_bounds_policy": "foo"}, "Not supported out_of_bounds_policy"),
    ({"crop": (3, 3), "rounding": "foo"}, "rounding")])
def test_bad_arguments_fail_at_build(kwargs, match):
    with pytest.raises(RuntimeError, match=match):
        run(lambda fn, x: fn.crop(x, **kwargs), IMGS)


@pytest.mark.parametrize("kwargs, layout, x, match", [
    ({"crop": (18, 3)}, "HWC", IMGS, r"out of bounds.*\n\(in sample 1"),
    ({"crop": (3, 3), "crop_pos_x": 1.5}, "HWC", IMGS, r"out of range \[0.0, 1.0\]"),
    ({"crop": (3, 3), "dtype": types.INT16}, "HWC", IMGS, "Not supported output type"),
    ({"crop": (25, 40), "out_of_bounds_policy": "pad", "fill_values": [1, 2]}, "HWC", IMGS,
     "fill value does not match"),
    ({"crop": (3, 3)}, "HW", [np.zeros((4, 4), np.uint8)], 'layout "HW" does not match'),
    ({"crop": (3, 3)}, "HWC", [np.zeros((4, 4, 1), np.bool_)], "input type: bool")])
def test_bad_input_fails_at_run(kwargs, layout, x, match):
    with pytest.raises(PipelineError, match=match):
        run(lambda fn, t: fn.crop(t, **kwargs), x, layout=layout)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"crop": (5, 7), "crop_pos_x": 0.3, "crop_pos_y": 0.9},
    {"crop": (17, 9), "rounding": "truncate", "crop_pos_x": 0.77, "crop_pos_y": 0.33},
    {"crop": (25, 40), "out_of_bounds_policy": "pad", "fill_values": [1, 2, 3]},
    {"crop": (25, 4), "out_of_bounds_policy": "pad", "fill_values": [-1.5], "crop_pos_y": 0.25},
    {"crop": (25, 40), "out_of_bounds_policy": "trim_to_shape"},
    {"crop_h": 8.7, "crop_w": 3.2, "crop_pos_x": 0.1}])
def test_matches_dali(kwargs):
    ours = run(lambda fn, x: fn.crop(x, **kwargs), IMGS)
    theirs = run(lambda fn, x: fn.crop(x, **kwargs), IMGS, real=True)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[0], theirs[0], strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
