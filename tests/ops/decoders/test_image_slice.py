"""fn.decoders.image_slice: slice windows (positional and named, absolute and relative, axes),
exact crops of the full decode, errors and the oracle."""

from __future__ import annotations

import decoder_images as images
import numpy as np
import pytest
from pipeline_utils import run_op

from dali import fn, pipeline_def
from dali._executor.errors import PipelineError
from dali.ops import _slice_window

H, W = 101, 77
RNG = np.random.default_rng(0)
ANCHORS = RNG.uniform(0, 0.6, (24, 2)).astype(np.float32)
SHAPES = RNG.uniform(0.05, 0.4, (24, 2)).astype(np.float32)
PIXEL_ANCHORS = (np.round(RNG.uniform(0, 80, (24, 2))) / 2).astype(np.float32)
PIXEL_SHAPES = (np.round(RNG.uniform(2, 60, (24, 2))) / 2).astype(np.float32)


def sliced(build, extra=(), real=False, data=None):
    """(y, x, h, w) windows of a coordinates image sliced by `build(fn, x, *extra nodes)`."""
    data = data or [images.coordinates_png(H, W)] * len(extra[0] if extra else [0])
    outs = run_op(build, [data, *[list(e) for e in extra]], real=real)[0]
    return [(int(y[0, 0]), int(x[0, 0]), *o.shape[:2])
            for o, (y, x) in ((o, images.read_coordinates(o)) for o in outs)]


def expected(lo, hi):
    """Windows of (x, y) starts and ends in pixels: round half away from zero."""
    lo, hi = np.floor(lo + 0.5).astype(int), np.floor(hi + 0.5).astype(int)
    return [(y0, x0, y1 - y0, x1 - x0) for (x0, y0), (x1, y1) in zip(lo, hi, strict=True)]


def test_normalized_positional_inputs():
    got = sliced(lambda fn, x, a, s: fn.decoders.image_slice(x, a, s), (ANCHORS, SHAPES))
    ext = np.array([W, H], np.float64)
    assert got == expected(ANCHORS * ext, (ANCHORS.astype(np.float64) + SHAPES) * ext)


def test_pixel_positional_inputs():
    got = sliced(lambda fn, x, a, s: fn.decoders.image_slice(
        x, a, s, normalized_anchor=False, normalized_shape=False), (PIXEL_ANCHORS, PIXEL_SHAPES))
    assert got == expected(PIXEL_ANCHORS, PIXEL_ANCHORS + PIXEL_SHAPES)
    ints = [PIXEL_ANCHORS.astype(np.int32), PIXEL_SHAPES.astype(np.int32)]
    got = sliced(lambda fn, x, a, s: fn.decoders.image_slice(x, a, s), ints)
    assert got == expected(ints[0], ints[0] + ints[1])


def test_named_relative_arguments():
    ext = np.array([W, H], np.float64)
    hi = (ANCHORS.astype(np.float64) + SHAPES) * ext
    assert sliced(lambda fn, x, a, s: fn.decoders.image_slice(x, rel_start=a, rel_shape=s),
                  (ANCHORS, SHAPES)) == expected(ANCHORS * ext, hi)
    assert sliced(lambda fn, x, a, s: fn.decoders.image_slice(x, rel_start=a, rel_end=a + s),
                  (ANCHORS, SHAPES)) == expected(ANCHORS * ext, hi)


@pytest.mark.parametrize("kwargs, window", [
    (dict(start=[3, 5], shape=[20, 30]), (5, 3, 30, 20)),
    (dict(start=[3, 5], end=[20, 30]), (5, 3, 25, 17)),
    (dict(start=[3, 5]), (5, 3, 96, 74)),
    (dict(end=[20, 30]), (0, 0, 30, 20)),
    (dict(rel_shape=[0.5, 0.5]), (0, 0, 51, 39)),
    (dict(rel_start=[0.5, 0.5], shape=[10, 10]), (51, 39, 10, 10)),
    (dict(start=[3, 5], shape=[20, 30], axes=[0, 1]), (3, 5, 20, 30)),
    (dict(start=[3, 5], shape=[20, 30], axis_names="HW"), (3, 5, 20, 30)),
    (dict(start=[3], shape=[20], axis_names="W"), (0, 3, 101, 20)),
    (dict(start=[3], shape=[20], axes=[-2]), (3, 0, 20, 77)),
])
def test_named_arguments(kwargs, window):
    assert sliced(lambda fn, x: fn.decoders.image_slice(x, **kwargs),
                  data=[images.coordinates_png(H, W)]) == [window]


def test_jpeg_slices_equal_the_full_decode():
    data = list(images.photos().values()) + [images.with_orientation("JPEG", 8,
                                                                     images.rgb(200, 150))]
    anchors = [np.array([0.1, 0.3], np.float32)] * len(data)
    shapes = [np.array([0.5, 0.6], np.float32)] * len(data)
    out, whole = run_op(lambda fn, x, a, s: (fn.decoders.image_slice(x, a, s),
                                             fn.decoders.image(x)), [data, anchors, shapes])
    for o, f in zip(out, whole, strict=True):
        ext = np.array([f.shape[1], f.shape[0]], np.float64)
        ((y, x, h, w),) = expected(anchors[0][None] * ext,
                                   (anchors[0][None] + shapes[0].astype(np.float64)) * ext)
        np.testing.assert_array_equal(o, f[y:y + h, x:x + w])


@pytest.mark.parametrize("kwargs", [
    dict(start=[3, 5], shape=[20, 30]), dict(rel_start=[0.25, 0.1], rel_end=[0.75, 0.9]),
    dict(start=[3], shape=[20], axes=[-2]), dict(rel_shape=[0.5, 0.5], axis_names="HW"),
])
def test_batch_windows_equal_the_per_sample_ones(monkeypatch, kwargs):
    """Named arguments, constants or argument inputs: the windows computed for the whole batch
    at once equal those computed sample by sample."""
    def build(fn, x, a, s):
        return (fn.decoders.image_slice(x, **kwargs),
                fn.decoders.image_slice(x, rel_start=a, rel_shape=s))

    data = [images.coordinates_png(H, W)] * len(ANCHORS)
    fast = run_op(build, [data, list(ANCHORS), list(SHAPES)])
    monkeypatch.setattr(_slice_window, "_named_arrays", lambda *a: None)
    slow = run_op(build, [data, list(ANCHORS), list(SHAPES)])
    for f, s in zip(fast, slow, strict=True):
        assert len(f) == len(s) == len(ANCHORS)
        for a, b in zip(f, s, strict=True):
            np.testing.assert_array_equal(a, b)


def test_windows_follow_the_image_sizes_of_every_batch():
    # constant arguments: the windows of repeated image sizes are remembered, not reused for
    # other sizes
    tall, wide = images.coordinates_png(H, W), images.coordinates_png(W, H)
    order = [[tall, tall], [tall, tall], [wide, tall], [tall, tall]]

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda i: order[i % len(order)], batch=True)
        return fn.decoders.image_slice(x, rel_start=[0.5, 0.25], rel_shape=[0.5, 0.5])

    p = pipe()
    p.build()
    for batch in order:
        (out,) = p.run()
        for o, png in zip(out, batch, strict=True):
            h, w = (H, W) if png is tall else (W, H)
            want = expected(np.array([[0.5 * w, 0.25 * h]]), np.array([[w, 0.75 * h]]))
            y, x = images.read_coordinates(np.asarray(o))
            assert [(int(y[0, 0]), int(x[0, 0]), *o.shape()[:2])] == want


@pytest.mark.parametrize("kwargs, message", [
    (dict(start=[70, 5], shape=[20, 30]), r"cropping window \[5\.\.35, 70\.\.90\]"),
    (dict(start=[-3, 5], shape=[20, 30]), "not valid for image dimensions"),
    (dict(start=[3, 5], shape=[0, 30]), "empty"),
    (dict(start=[30, 5], end=[20, 30]), "can't be before start"),
    (dict(start=[3, 5, 1], shape=[20, 30]), "expected shape 2 but got 3"),
    (dict(start=[3], shape=[20], axes=[5]), "Axis 5 out of range"),
    (dict(start=[1], shape=[2], axis_names="C"), "Axis 'C' is not present"),
    (dict(), "Expected named slice arguments"),
])
def test_errors_at_run(kwargs, message):
    with pytest.raises(PipelineError, match=message):
        run_op(lambda fn, x: fn.decoders.image_slice(x, **kwargs),
               [[images.variants()["jpeg"]]])


@pytest.mark.parametrize("kwargs, message", [
    (dict(start=[3, 5], axes=[0, 1], axis_names="WH"), "mutually exclusive"),
    (dict(start=[3, 5], rel_start=[0.1, 0.1]), "mutually exclusive"),
    (dict(start=[3, 5], end=[20, 30], shape=[5, 5]), "mutually exclusive"),
])
def test_argument_conflicts_fail_at_build(kwargs, message):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [images.photo()], batch=True)
        return fn.decoders.image_slice(x, **kwargs)

    with pytest.raises(RuntimeError, match=message):
        pipe().build()


def test_positional_inputs_exclude_named_arguments():
    with pytest.raises(PipelineError, match="not compatible with positional"):
        run_op(lambda fn, x, a, s: fn.decoders.image_slice(x, a, s, start=[1, 1]),
               [[images.photo()], [np.array([1, 1], np.int32)], [np.array([5, 5], np.int32)]])


@pytest.mark.oracle
def test_windows_match_dali():
    for build, extra in [
            (lambda fn, x, a, s: fn.decoders.image_slice(x, a, s), (ANCHORS, SHAPES)),
            (lambda fn, x, a, s: fn.decoders.image_slice(
                x, a, s, normalized_anchor=False, normalized_shape=False),
             (PIXEL_ANCHORS, PIXEL_SHAPES)),
            (lambda fn, x, a, s: fn.decoders.image_slice(x, rel_start=a, rel_shape=s),
             (ANCHORS, SHAPES))]:
        assert sliced(build, extra) == sliced(build, extra, real=True)
