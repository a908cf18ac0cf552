"""Decode scaling (`Pipeline(decode_scaling=True)`, dali.ops._regions.Delivery): the decoder
hands JPEGs reduced by 2, 4 or 8 to a resize or random_resized_crop that reduces them at least
as much; shapes and random windows stay those of the exact pipeline, values stay close to them,
and samples that cannot be reduced (PNG, progressive turned JPEGs, small reductions) are
exact."""

import math
import pathlib

import cv2
import decoder_images as images
import numpy as np
import pytest

import dali
from dali import fn, pipeline_def, types
from dali._ext.kernels import jpeg
from dali.ops import _regions
from dali.ops.decoders._window_decoder import WindowDecoder
from dali.ops.geometry import _resize_common

PHOTOS = sorted((pathlib.Path(dali.__file__).parent / "data" / "images").glob("**/*.jpg"))
ENCODED = [np.frombuffer(p.read_bytes(), np.uint8) for p in PHOTOS]


def _big(k):
    """Bundled photo k upscaled 4x and encoded again (a 'large' photo, 4:2:0)."""
    image = cv2.imdecode(ENCODED[k], cv2.IMREAD_COLOR)
    big = cv2.resize(image, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)
    return images.encode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 92])


LARGE = [_big(k) for k in range(6)]
# Samples no decoder reduces: a PNG and a turned JPEG (both large), and a small photo.
UNREDUCED = [images.encode(".png", cv2.imdecode(LARGE[0], cv2.IMREAD_COLOR)[:700, :900]),
             images.with_orientation("JPEG", 6, np.ascontiguousarray(
                 cv2.imdecode(LARGE[1], cv2.IMREAD_COLOR)[:600, :800])),
             ENCODED[7]]


def _run(graph, samples, scaling, iterations=2):
    @pipeline_def(batch_size=len(samples), num_threads=2, device_id=None, seed=11,
                  decode_scaling=scaling)
    def pipe():
        return graph(fn.external_source(source=lambda: samples))

    p = pipe()
    p.build()
    return [[np.array(t) for t in p.run()[0]] for _ in range(iterations)], p


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return math.inf if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


GRAPHS = {
    "random_crop_resize": lambda j: fn.resize(
        fn.decoders.image_random_crop(j, output_type=types.RGB), resize_x=224, resize_y=224),
    "rrc": lambda j: fn.random_resized_crop(fn.decoders.image(j), size=(160, 160)),
    "shorter_cmn": lambda j: fn.crop_mirror_normalize(
        fn.resize(fn.decoders.image(j), resize_shorter=150), crop=(128, 128),
        dtype=types.UINT8, output_layout="HWC"),
    "gray_cubic": lambda j: fn.resize(fn.decoders.image(j, output_type=types.GRAY),
                                      size=[150, 200], interp_type=types.INTERP_CUBIC),
}


@pytest.mark.parametrize("name", list(GRAPHS))
def test_scaled_outputs_are_close_to_the_exact_ones(name):
    samples = LARGE + UNREDUCED
    exact, _ = _run(GRAPHS[name], samples, False)
    scaled, _ = _run(GRAPHS[name], samples, True)
    reduced = 0
    for a_it, b_it in zip(scaled, exact, strict=True):
        for i, (a, b) in enumerate(zip(a_it, b_it, strict=True)):
            assert a.shape == b.shape and a.dtype == b.dtype
            if i >= len(LARGE):                  # never reduced: exact
                np.testing.assert_array_equal(a, b)
                continue
            assert psnr(a, b) >= 35.0, (name, i)
            reduced += not np.array_equal(a, b)
    assert reduced >= len(LARGE)                 # the large JPEGs were decoded reduced


def test_off_by_default_and_readable_back():
    exact, p = _run(GRAPHS["rrc"], LARGE[:2], False)
    assert p.decode_scaling is False
    plain = pipeline_def(lambda: fn.decoders.image(fn.external_source(source=lambda: LARGE)),
                         batch_size=2, num_threads=1, device_id=None)()
    assert plain.decode_scaling is False
    with pytest.raises(TypeError, match="`decode_scaling` must be a bool, got 'yes'"):
        dali.Pipeline(batch_size=1, decode_scaling="yes")


def _resized(image, size, roi_start, roi_end):
    """fn.resize of one image over a region of interest in pixels (the exact path)."""
    out, _ = _run(lambda src: fn.resize(src, size=size, roi_start=roi_start, roi_end=roi_end),
                  [image], False, iterations=1)
    return out[0][0]


def test_scaled_decode_equals_resizing_the_reduced_image():
    """decoders.image -> resize: the reduced image is the JPEG decoded at 1/s (its high
    frequencies dropped: `jpeg.decode_roi(..., approximate=True)`), and the resize
    reads it over the source region mapped onto its grid: equal to resizing that reduced image
    with the region of interest (0, 0)..(H/s, W/s)."""
    out_h, out_w = 150, 170
    graph = lambda j: fn.resize(fn.decoders.image(j), size=[out_h, out_w])  # noqa: E731
    scaled, _ = _run(graph, LARGE, True, iterations=1)
    for k, data in enumerate(LARGE):
        h, w = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE).shape
        s = next(s for s in (8, 4, 2) if min(h / s / out_h, w / s / out_w) >= 1.25)
        reduced = jpeg.decode_roi(data, 0, 0, -(-w // s), -(-h // s), jpeg.RGB, s,
                                  approximate=True)
        expected = _resized(reduced, [out_h, out_w], [0, 0], [h / s, w / s])
        np.testing.assert_array_equal(scaled[0][k], expected)


def test_a_window_off_the_reduced_grid_keeps_its_phase():
    """decoders.image_crop at a window whose origin is no multiple of the scale: inside, the
    output equals resizing the whole reduced image over the window mapped onto its grid."""
    out = 40
    crop = (500, 600)
    graph = lambda j: fn.resize(fn.decoders.image_crop(  # noqa: E731
        j, crop=crop, crop_pos_x=0.37, crop_pos_y=0.61), size=[out, out])
    scaled, _ = _run(graph, LARGE, True, iterations=1)
    for k, data in enumerate(LARGE):
        h, w = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE).shape
        y0 = round(0.61 * (h - crop[0]))
        x0 = round(0.37 * (w - crop[1]))
        s = 8
        assert (y0 % s, x0 % s) != (0, 0)
        reduced = jpeg.decode_roi(data, 0, 0, -(-w // s), -(-h // s), jpeg.RGB, s,
                                  approximate=True)
        expected = _resized(reduced, [out, out], [y0 / s, x0 / s],
                            [(y0 + crop[0]) / s, (x0 + crop[1]) / s])
        inner = (slice(4, -4), slice(4, -4))     # the borders clamp at the window's edges
        got, want = scaled[0][k][inner].astype(int), expected[inner].astype(int)
        # the same filters up to the rounding of their positions (p / s against y0 / s)
        assert np.abs(got - want).max() <= 1 and np.mean(got != want) < 0.01


def test_max_scales():
    extents = [[1600, 1200], [900, 900], [447, 1000], [100, 100], [800, -1600]]
    out = [[200, 150], [224, 224], [224, 224], [224, 224], [100, 100]]
    # the reduced extent spans at least 1.25x the output
    assert _resize_common.SCALE_MARGIN == 1.25
    np.testing.assert_array_equal(_resize_common.max_scales(extents, out), [4, 2, 1, 1, 4])
    np.testing.assert_array_equal(_resize_common.max_scales([[1000, 1000]], [[100, 100]]), [8])
    np.testing.assert_array_equal(_resize_common.max_scales([[64, 64]], [[0, 5]]), [1])


def test_delivery_of_reduces_the_scalable_samples():
    windows = [[0, 0, 800, 600], [3, 5, 100, 90], [7, 9, 5, 5], [0, 0, 640, 480],
               [13, 2, 400, 300], [7, 7, 1, 1]]
    d = _regions.delivery_of(windows, [8, 4, 8, 2, 4, 8], [True, True, True, False, True, True])
    np.testing.assert_array_equal(d.scales, [8, 4, 8, 1, 4, 8])
    np.testing.assert_array_equal(d.phases, [[0, 0], [3, 1], [7, 1], [0, 0], [1, 2], [7, 7]])
    # ceil((origin + size) / s) - origin // s, never more than the window's own size
    np.testing.assert_array_equal(d.extents, [[100, 75], [26, 23], [2, 1], [640, 480],
                                              [101, 76], [1, 1]])
    assert _regions.delivery_of(windows, [1] * 6, [True] * 6) is None
    assert _regions.delivery_of(windows, [8] * 6, [False] * 6) is None


def test_delivery_maps_coordinates_onto_the_reduced_grid():
    d = _regions.Delivery(np.array([4, 1]), np.array([[3, 1], [0, 0]]),
                          np.array([[26, 24], [50, 60]]))
    lo, hi = d.bounds(np.array([[0.0, 0.0], [2.0, 3.0]]), np.array([[100.0, 90.0],
                                                                     [50.0, 60.0]]))
    np.testing.assert_allclose(lo, [[0.75, 0.25], [2.0, 3.0]])
    np.testing.assert_allclose(hi, [[25.75, 22.75], [50.0, 60.0]])
    assert d.shapes([(100, 90, 3), (50, 60, 1)]) == [(26, 24, 3), (50, 60, 1)]
    samples = [np.zeros((100, 90, 3)), np.zeros((50, 60, 1))]
    assert [s.shape for s in d.sources(samples)] == [(26, 24, 3), (50, 60, 1)]
    assert d.geometry([([0, 0], [100, 90]), ([2, 3], [50, 60])]) == [
        ([0.75, 0.25], [25.75, 22.75]), ([2, 3], [50, 60])]


def test_only_decoders_followed_by_a_reducing_operator_scale():
    def graph(j):
        decoded = fn.decoders.image(j)
        return fn.crop_mirror_normalize(decoded, crop=(64, 64), dtype=types.UINT8,
                                        output_layout="HWC")

    exact, _ = _run(graph, LARGE, False, iterations=1)
    scaled, p = _run(graph, LARGE, True, iterations=1)
    for a, b in zip(scaled[0], exact[0], strict=True):
        np.testing.assert_array_equal(a, b)
    decoder = next(op for op in p._executor.ops if isinstance(op, WindowDecoder))
    assert decoder.region_scaling is False
