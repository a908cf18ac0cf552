"""fn.resize: goldens from real DALI, NumPy references (nearest neighbour, filters, kernel),
size/ROI logic, per-sample arguments, and errors."""

import json
import math
import pathlib
import threading
import types as types_ns

import cv2
import numpy as np
import pytest
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError
from dali._ext import thread_pool
from dali.ops.geometry import _resampling, _resize_common

GOLDENS = np.load(pathlib.Path(__file__).parents[2] / "goldens" / "resize.npz")
SPEC = json.loads(str(GOLDENS["spec"]))
RNG = np.random.default_rng(11)
Interp = types.DALIInterpType

# Golden tolerance.  Integer outputs: at most 1 off, on few pixels.  Linear and nearest
# neighbour weights equal DALI's bit for bit in the interior; the remaining differences are
# ties (x.5) that DALI's float rounding puts on the other side (frequent only on the
# synthetic gradient image; DALI itself rounds ties differently in its vectorized and scalar
# loops).  Measured: max 1, at most 30 of 1539 values (gradient, resize_x); 0 for most.
INT_MISMATCH_FRACTION = 0.025
FLOAT_RTOL = 1e-4            # measured: 3e-5 of the value range


def _kwargs(spec):
    kw = dict(spec)
    for k in ("interp_type", "min_filter", "mag_filter"):
        if k in kw:
            kw[k] = getattr(types, kw[k])
    if "dtype" in kw:
        kw["dtype"] = getattr(types, kw["dtype"])
    return kw


def _outputs(out):
    return tuple(out) if isinstance(out, list) else out


@pytest.mark.parametrize("config", SPEC, ids=[c["name"] for c in SPEC])
def test_golden(config):
    kw = _kwargs(config["kwargs"])
    samples = [GOLDENS[f"in_{n}"] for n in config["inputs"]]
    outs = run_op(lambda fn, x: _outputs(fn.resize(x, **kw)), [samples],
                  layouts=[config["layout"]])
    for k, out in enumerate(outs[0]):
        ref = GOLDENS[f"out_{config['name']}_{k}"]
        assert out.shape == ref.shape and out.dtype == ref.dtype
        diff = np.abs(out.astype(np.float64) - ref)
        if out.dtype == np.float32:
            assert diff.max() <= FLOAT_RTOL * max(1.0, np.abs(ref).max())
        else:
            assert diff.max() <= 1
            assert np.count_nonzero(diff) <= INT_MISMATCH_FRACTION * diff.size
    if kw.get("save_attrs"):
        for k, attr in enumerate(outs[1]):
            np.testing.assert_array_equal(attr, GOLDENS[f"attr_{config['name']}_{k}"])
            assert attr.dtype == np.int32


# -- NumPy references -------------------------------------------------------------------------

def _dense(f, n_in):
    w = np.zeros((len(f.starts), n_in))
    for i, (s, row) in enumerate(zip(f.starts, f.weights, strict=True)):
        w[i, s:s + len(row)] += row
    return w


@pytest.mark.parametrize("n_in, n_out, lo, hi", [
    (7, 3, 0, 7), (7, 20, 0, 7), (10, 10, 0, 10), (13, 5, 2.5, 11.25), (13, 5, 11.25, 2.5),
    (5, 12, -3, 9), (9, 4, 4.2, 4.2)])
def test_nearest_neighbour_samples_pixel_centres(n_in, n_out, lo, hi):
    f = _resampling.axis_filter(int(Interp.INTERP_NN), n_in, n_out, lo, hi)
    scale = (hi - lo) / n_out
    expected = np.clip(np.floor(lo + (np.arange(n_out) + 0.5) * scale), 0, n_in - 1)
    np.testing.assert_array_equal(f.starts, expected)
    assert f.support == 1 and (f.weights == 1).all()


def _triangle_weights(n_in, n_out, antialias):
    """Reference: triangle of radius max(1, scale) (antialiased) at the pixel-centre mapping,
    taps outside the image clamped to the edge, normalized."""
    scale = n_in / n_out
    radius = scale if antialias and scale > 1 else 1.0
    w = np.zeros((n_out, n_in))
    for i in range(n_out):
        c = (i + 0.5) * scale - 0.5
        for k in range(math.floor(c - radius), math.ceil(c + radius) + 1):
            w[i, min(max(k, 0), n_in - 1)] += max(0.0, 1 - abs(k - c) / radius)
        w[i] /= w[i].sum()
    return w


@pytest.mark.parametrize("n_in, n_out", [(10, 4), (37, 11), (11, 37), (20, 19), (3, 17)])
@pytest.mark.parametrize("antialias", [True, False])
def test_linear_filter_is_a_triangle(n_in, n_out, antialias):
    f = _resampling.axis_filter(int(Interp.INTERP_LINEAR), n_in, n_out, 0.0, float(n_in), antialias)
    # float32 positions: ~1e-5 relative
    np.testing.assert_allclose(_dense(f, n_in), _triangle_weights(n_in, n_out, antialias),
                               atol=1e-5)


def _keys_cubic(x):
    x = np.abs(x)
    return np.where(x < 1, 1.5 * x**3 - 2.5 * x**2 + 1,
                    np.where(x < 2, -0.5 * x**3 + 2.5 * x**2 - 4 * x + 2, 0))


@pytest.mark.parametrize("interp, kernel, radius", [
    (Interp.INTERP_CUBIC, _keys_cubic, 2),
    (Interp.INTERP_LANCZOS3, lambda x: np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0), 3)])
@pytest.mark.parametrize("n_in, n_out", [(13, 6), (6, 13), (40, 17)])
def test_windowed_filters(interp, kernel, radius, n_in, n_out):
    # DALI samples the kernels from tables: the weights are within 1e-3 of the exact ones.
    scale = n_in / n_out
    stretch = max(1.0, scale)
    w = np.zeros((n_out, n_in))
    for i in range(n_out):
        c = (i + 0.5) * scale - 0.5
        for k in range(math.floor(c - radius * stretch), math.ceil(c + radius * stretch) + 1):
            w[i, min(max(k, 0), n_in - 1)] += kernel((k - c) / stretch)
        w[i] /= w[i].sum()
    f = _resampling.axis_filter(int(interp), n_in, n_out, 0.0, float(n_in), True)
    np.testing.assert_allclose(_dense(f, n_in), w, atol=1e-3)


def test_nearest_neighbour_image():
    img = RNG.integers(0, 256, (23, 31, 3), dtype=np.uint8)
    (out,) = run_op(lambda fn, x: fn.resize(x, size=[40, 12], interp_type=Interp.INTERP_NN),
                    [[img]], layouts=["HWC"])[0]
    ys = np.floor((np.arange(40) + 0.5) * 23 / 40).astype(int)
    xs = np.floor((np.arange(12) + 0.5) * 31 / 12).astype(int)
    np.testing.assert_array_equal(out, img[ys][:, xs])


@pytest.mark.parametrize("size", [[20, 30], [90, 100], [30, 80]])
def test_linear_without_antialias_matches_opencv(size):
    img = RNG.integers(0, 256, (41, 57, 3), dtype=np.uint8)
    (out,) = run_op(lambda fn, x: fn.resize(x, size=size, antialias=False),
                    [[img]], layouts=["HWC"])[0]
    ref = cv2.resize(img, (size[1], size[0]), interpolation=cv2.INTER_LINEAR)
    assert np.abs(out.astype(int) - ref).max() <= 1


def test_antialiasing_is_not_area_averaging():
    # 2x downscale of a one-pixel line at x = 3: a triangle of radius 2 centred at output
    # centres 0.5, 2.5, 4.5, 6.5 gives it weights 0, 3/8, 1/8, 0; area averaging would put it
    # in output 1 alone.
    img = np.zeros((1, 8, 1), np.float32)
    img[0, 3] = 8
    (out,) = run_op(lambda fn, x: fn.resize(x, size=[1, 4]), [[img]], layouts=["HWC"])[0]
    np.testing.assert_allclose(out.ravel(), [0, 3, 1, 0], atol=1e-6)


def _reference(src, filters):
    x = src.astype(np.float64)
    for a, f in enumerate(filters):
        x = np.moveaxis(np.tensordot(_dense(f, x.shape[a + 1]), np.moveaxis(x, a + 1, 0), 1),
                        0, a + 1)
    return x


def _random(shape, dtype):
    if dtype == np.float32:
        return (RNG.random(shape) * 1000 - 500).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, shape, endpoint=True).astype(dtype)


@pytest.mark.parametrize("dtype, out_dtype", [
    (np.uint8, np.uint8), (np.int16, np.int16), (np.uint16, np.uint16),
    (np.float32, np.float32), (np.uint8, np.float32), (np.int16, np.float32)])
@pytest.mark.parametrize("channels", [1, 2, 3, 4, 5, 9, 17])
def test_kernel_matches_numpy(dtype, out_dtype, channels):
    for shape_in, shape_out, interp in [((13, 17), (7, 30), Interp.INTERP_LINEAR),
                                        ((20, 9), (41, 5), Interp.INTERP_CUBIC),
                                        ((5, 6, 7), (9, 3, 11), Interp.INTERP_LANCZOS3),
                                        ((10,), (23,), Interp.INTERP_NN)]:
        src = _random((2, *shape_in, channels), dtype)
        filters = [_resampling.axis_filter(int(interp), n, m, 0.0, float(n))
                   for n, m in zip(shape_in, shape_out, strict=True)]
        dst = np.empty((2, *shape_out, channels), out_dtype)
        _resampling.resample(src, dst, filters)
        ref = _reference(src, filters)
        if np.dtype(out_dtype).kind == "f":
            np.testing.assert_allclose(dst, ref, atol=1e-5 * np.abs(ref).max())
        else:
            info = np.iinfo(out_dtype)
            ref = np.clip(np.sign(ref) * np.floor(np.abs(ref) + 0.5), info.min, info.max)
            assert np.abs(dst.astype(np.float64) - ref).max() <= 1


def _batch_case(rng, k):
    """A random sample for resample_batch: (src, out shape, lo, hi, filters, window)."""
    dtype = [np.uint8, np.int16, np.uint16, np.float32][k % 4]
    c = [1, 3, 4, 2, 9][k % 5]
    h, w = (int(v) for v in rng.integers(1, 40, 2))
    big = _random((h + 3, w + 5, c), dtype)
    src = big[1:h + 1, 2:w + 2]                      # rows apart
    out = tuple(int(v) for v in rng.integers(1, 50, 2))
    if k % 7 == 0:
        out = (h, w)                                 # identity axes (copies)
    lo = [float(rng.uniform(-2, h / 3)), float(rng.uniform(-2, w / 3))]
    hi = [float(rng.uniform(h / 2, h + 2)), float(rng.uniform(w / 2, w + 2))]
    if k % 7 == 0:
        lo, hi = [0.0, 0.0], [float(h), float(w)]
    if k % 5 == 1:
        lo[1], hi[1] = hi[1], lo[1]                  # mirrored
    kinds = list(Interp)
    filters = (kinds[k % 6], kinds[(k // 6) % 6])
    window = None
    if k % 3 == 1:
        y0, x0 = int(rng.integers(0, out[0])), int(rng.integers(0, out[1]))
        window = ((y0, int(rng.integers(y0 + 1, out[0] + 1))),
                  (x0, int(rng.integers(x0 + 1, out[1] + 1))))
    return src, out, lo, hi, filters, window


@pytest.mark.parametrize("out_float", [False, True])
@pytest.mark.parametrize("antialias", [True, False])
def test_batch_equals_sample_by_sample(out_float, antialias):
    rng = np.random.default_rng(int(out_float) * 2 + int(antialias))
    cases = [_batch_case(rng, k) for k in range(72)]
    dsts, refs = [], []
    for src, out, lo, hi, (fmin, fmag), window in cases:
        dtype = np.float32 if out_float else src.dtype
        ref = np.zeros((*out, src.shape[2]), dtype)
        _resize_common.resample_sample(src, ref, "HWC", lo, hi, fmin, fmag, antialias, window)
        refs.append(ref)
        dsts.append(np.zeros_like(ref))
    _resampling.resample_batch(thread_pool.ThreadPool(2), [c[0] for c in cases], dsts,
                               [c[2] for c in cases], [c[3] for c in cases],
                               [c[4] for c in cases], antialias, [c[5] for c in cases])
    for k, (dst, ref) in enumerate(zip(dsts, refs, strict=True)):
        np.testing.assert_array_equal(dst, ref, err_msg=f"case {k}")


@pytest.mark.parametrize("antialias", [True, False])
def test_batch_runs_of_one_plan_equal_sample_by_sample(antialias):
    """Consecutive samples of one plan (sizes, region, window, filters) share their filters in
    the batch kernel, in work items of several samples: runs of up to 100 samples, with other
    data, channel counts and types, an empty sample among them."""
    rng = np.random.default_rng(11 + antialias)
    srcs, dsts, lo, hi, filters, windows, refs = [], [], [], [], [], [], []
    for k in range(12):
        _, out, a, b, f, window = _batch_case(rng, k)
        size = (int(rng.integers(1, 40)), int(rng.integers(1, 40)))
        if k % 7 == 0:
            out, a, b = size, [0.0, 0.0], [float(size[0]), float(size[1])]
        if window is not None:
            window = tuple((min(y, o - 1), min(z, o))
                           for (y, z), o in zip(window, out, strict=True))
        for j in range([1, 3, 100, 5][k % 4]):
            c, dtype = [1, 3, 4][j % 3], [np.uint8, np.int16, np.uint16, np.float32][j % 4]
            src = _random((0 if (k, j) == (2, 7) else size[0], size[1], c), dtype)
            ref = np.zeros((*out, c), dtype)
            _resize_common.resample_sample(src, ref, "HWC", a, b, *f, antialias, window)
            srcs.append(src)
            refs.append(ref)
            dsts.append(np.zeros_like(ref))
            lo.append(a)
            hi.append(b)
            filters.append(f)
            windows.append(window)
    _resampling.resample_batch(thread_pool.ThreadPool(2), srcs, dsts, lo, hi, filters,
                               antialias, windows)
    for k, (dst, ref) in enumerate(zip(dsts, refs, strict=True)):
        np.testing.assert_array_equal(dst, ref, err_msg=f"sample {k}")


def test_batch_runs_without_a_pool_and_checks_its_samples():
    src = _random((9, 7, 3), np.uint8)
    dst = np.zeros((4, 5, 3), np.uint8)
    ref = np.zeros_like(dst)
    lin = Interp.INTERP_LINEAR
    _resize_common.resample_sample(src, ref, "HWC", [0.0, 0.0], [9.0, 7.0], lin, lin, True)
    _resampling.resample_batch(None, [src], [dst], [[0, 0]], [[9, 7]], [(lin, lin)], True)
    np.testing.assert_array_equal(dst, ref)
    with pytest.raises(ValueError, match="sample 0: the pixels must be contiguous"):
        _resampling.resample_batch(None, [src[:, ::2]], [dst], [[0, 0]], [[9, 7]],
                                   [(lin, lin)], True)
    with pytest.raises(ValueError, match="sample 0: the output must have the input type"):
        _resampling.resample_batch(None, [src], [dst.astype(np.int16)], [[0, 0]], [[9, 7]],
                                   [(lin, lin)], True)
    with pytest.raises(ValueError, match="sample 0: the window does not match dst"):
        _resampling.resample_batch(None, [src], [dst], [[0, 0]], [[9, 7]], [(lin, lin)],
                                   True, [((0, 2), (0, 7))])    # past the output


def test_kernel_rounds_half_away_from_zero_and_saturates():
    # One pass along the innermost axis: exact ties round away from zero.
    src = np.array([[0, 1], [0, 3], [0, -3], [-2, -3], [32767, 32767]], np.float32)
    f = _resampling.axis_filter(int(Interp.INTERP_LINEAR), 2, 1, 0.0, 2.0)
    dst = np.empty((5, 1, 1), np.int16)
    _resampling.resample(src.reshape(5, 2, 1), dst, [f])
    np.testing.assert_array_equal(dst.ravel(), [1, 2, -2, -3, 32767])
    big = np.full((1, 2, 1), 1e6, np.float32)
    out = np.empty((1, 1, 1), np.uint8)
    _resampling.resample(big, out, [f])
    assert out.item() == 255


@pytest.mark.parametrize("dtype, out_dtype", [(np.uint8, np.uint8), (np.float32, np.float32),
                                              (np.uint16, np.uint16), (np.uint8, np.float32)])
@pytest.mark.parametrize("shape_in, shape_out, interp", [
    ((120, 90), (37, 50), Interp.INTERP_LINEAR),       # height first, width last
    ((60, 200), (45, 33), Interp.INTERP_CUBIC),        # width first, height last
    ((40, 50), (40, 73), Interp.INTERP_LANCZOS3),
    ((40, 50), (81, 50), Interp.INTERP_LINEAR),        # the height only
    ((30, 41), (17, 23), Interp.INTERP_NN)])
def test_output_windows_equal_the_whole_output(dtype, out_dtype, shape_in, shape_out, interp):
    # A window of the output is computed from the input positions its filters read: the same
    # values (bit for bit, rounding included) as the corresponding part of the whole output.
    src = _random((2, *shape_in, 3), dtype)
    filters = [_resampling.axis_filter(int(interp), n, m, 0.0, float(n))
               for n, m in zip(shape_in, shape_out, strict=True)]
    whole = np.empty((2, *shape_out, 3), out_dtype)
    _resampling.resample(src, whole, filters)
    h, w = shape_out
    big = np.zeros((2, h + 5, w + 7, 3), out_dtype)
    for (y0, y1), (x0, x1) in [((0, h), (0, w)), ((3, h - 2), (5, w - 4)), ((1, 2), (0, w)),
                               ((0, h), (7, 8))]:
        part = big[:, y0 + 2:y1 + 2, x0 + 3:x1 + 3]          # a strided window of a bigger array
        _resampling.resample(src, part, filters, window=[(y0, y1), (x0, x1)])
        np.testing.assert_array_equal(part, whole[:, y0:y1, x0:x1])


def test_output_windows_round_ties_like_the_whole_row():
    # Rows k and k + 1 averaged: every value is a tie.  A last pass along an outer axis rounds
    # the first whole vectors of 16 values of each output row half to even and the rest half
    # away from zero (DALI's loops); a window of the row keeps each value's rounding.
    src = np.stack([np.arange(40), np.arange(1, 41)]).astype(np.uint8).reshape(1, 2, 20, 2)
    f = _resampling.axis_filter(int(Interp.INTERP_LINEAR), 2, 1, 0.0, 2.0)
    ident = _resampling.axis_filter(int(Interp.INTERP_LINEAR), 20, 20, 0.0, 20.0)
    assert ident.identity
    whole = np.empty((1, 1, 20, 2), np.uint8)
    _resampling.resample(src, whole, [f, ident])
    values = np.arange(40) + 0.5
    np.testing.assert_array_equal(whole.ravel(), np.where(np.arange(40) < 32,
                                                          np.round(values), values + 0.5))
    for x0, x1 in [(0, 20), (5, 12), (3, 20), (16, 20), (15, 17)]:
        part = np.empty((1, 1, x1 - x0, 2), np.uint8)
        _resampling.resample(src, part, [f, ident], window=[(0, 1), (x0, x1)])
        np.testing.assert_array_equal(part, whole[:, :, x0:x1])


def test_only_the_input_positions_the_filters_read_are_accessed():
    # NaN outside the region of interest would spread to every output it reached.
    img = _random((1, 50, 60, 3), np.float32)
    f = _resampling.region_filters((50, 60), (11, 13), [10.5, 20], [30, 44.25],
                                   Interp.INTERP_CUBIC, Interp.INTERP_CUBIC, True)
    expected = np.empty((1, 11, 13, 3), np.float32)
    _resampling.resample(img, expected, f)
    y0, y1 = f[0].starts.min(), f[0].starts.max() + f[0].support
    x0, x1 = f[1].starts.min(), f[1].starts.max() + f[1].support
    poisoned = np.full_like(img, np.nan)
    poisoned[:, y0:y1, x0:x1] = img[:, y0:y1, x0:x1]
    out = np.empty_like(expected)
    _resampling.resample(poisoned, out, f)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("interp", [Interp.INTERP_NN, Interp.INTERP_LINEAR, Interp.INTERP_CUBIC,
                                    Interp.INTERP_LANCZOS3, Interp.INTERP_GAUSSIAN])
def test_read_span_holds_every_position_the_filter_reads(interp):
    rng = np.random.default_rng(int(interp))
    for _ in range(400):
        n_in, n_out = (int(v) for v in rng.integers(1, 300, 2))
        lo, hi = sorted(rng.uniform(-5, n_in + 5, 2))
        if rng.random() < 0.3:
            lo, hi = 0.0, float(n_in)
        if rng.random() < 0.3:
            lo, hi = hi, lo                          # mirrored
        antialias = bool(rng.random() < 0.8)
        f = _resampling.axis_filter(int(interp), n_in, n_out, lo, hi, antialias)
        start = int(rng.integers(0, n_out))
        stop = int(rng.integers(start + 1, n_out + 1))
        window = (start, stop) if rng.random() < 0.7 else None
        (first, last), = _resampling.input_span([f], None if window is None else [window])
        a, b = _resampling.read_span(n_in, n_out, lo, hi, interp, interp, antialias, window)
        assert 0 <= a <= first and last <= b <= n_in, (n_in, n_out, lo, hi, window)


def _numpy_axis_filter(interp, n_in, n_out, lo, hi, antialias):
    """NumPy reference of `_resampling.axis_filter` (float32, operation by operation):
    (starts, weights) after folding."""
    f32 = np.float32
    scale = f32((f32(hi) - f32(lo)) / f32(n_out))
    i = np.arange(n_out, dtype=f32)
    if interp == Interp.INTERP_NN:
        pos = np.floor(f32(lo) + (i + f32(0.5)) * scale)
        return np.minimum(np.maximum(pos, 0), n_in - 1).astype(np.int32), np.ones((n_out, 1))
    table, radius = _resampling._TABLES[interp]
    samples = len(table) - 2
    s = abs(scale)
    r = f32(radius) * (s if antialias and s > 1 else f32(1))
    step = f32(samples - 1) / (f32(2) * r)
    support = int(np.ceil(f32(samples - 1) / step))
    origin = f32(f32(lo) + f32(0.5) * scale - f32(0.5) - f32(2) * r * f32(0.5))
    first = i * scale + origin
    first_tap = np.ceil(first)
    x = (first_tap[:, None] + np.arange(support, dtype=f32) - first[:, None]) * step
    x0 = np.floor(x)
    i0 = np.minimum(x0, samples).astype(np.int32)
    w = table[i0] + (x - x0) * (table[i0 + 1] - table[i0])
    total = np.cumsum(w, axis=1, dtype=f32)[:, -1]
    total[total == 0] = 1
    w /= total[:, None]
    first = first_tap.astype(np.int64)
    width = min(support, n_in)
    starts = np.minimum(np.maximum(first, 0), n_in - width)
    folded = np.zeros((n_out, width), f32)
    for row in range(n_out):
        if width == support and first[row] == starts[row]:
            folded[row] = w[row]
            continue
        for k in range(support):
            col = min(max(first[row] + k, 0), n_in - 1) - starts[row]
            folded[row, col] += w[row, k]
    return starts.astype(np.int32), folded


@pytest.mark.parametrize("interp", [Interp.INTERP_NN, Interp.INTERP_LINEAR, Interp.INTERP_CUBIC,
                                    Interp.INTERP_LANCZOS3, Interp.INTERP_GAUSSIAN])
def test_axis_filter_equals_the_numpy_formulation_bit_for_bit(interp):
    rng = np.random.default_rng(100 + int(interp))
    for _ in range(300):
        n_in, n_out = (int(v) for v in rng.integers(1, 200, 2))
        lo, hi = (0.0, float(n_in)) if rng.random() < 0.4 else sorted(rng.uniform(-5, n_in, 2))
        if rng.random() < 0.2:
            lo, hi = hi, lo
        antialias = bool(rng.random() < 0.8)
        f = _resampling.axis_filter.__wrapped__(int(interp), n_in, n_out, float(lo), float(hi),
                                                antialias)
        starts, weights = _numpy_axis_filter(interp, n_in, n_out, lo, hi, antialias)
        np.testing.assert_array_equal(f.starts, starts)
        np.testing.assert_array_equal(f.weights, weights)


def test_kernel_refuses_windows_outside_the_input():
    f = _resampling.axis_filter(int(Interp.INTERP_LINEAR), 10, 4, 0.0, 10.0)
    src = np.zeros((1, 5, 1), np.float32)       # shorter than the filter's input
    with pytest.raises(ValueError, match="outside the input"):
        _resampling.resample(src, np.empty((1, 4, 1), np.float32), [f])


def test_kernel_runs_in_parallel_threads():
    src = RNG.integers(0, 256, (1, 300, 400, 3), dtype=np.uint8)
    filters = _resampling.region_filters((300, 400), (97, 131), [0, 0], [300, 400],
                                         Interp.INTERP_CUBIC, Interp.INTERP_CUBIC, True)
    expected = np.empty((1, 97, 131, 3), np.uint8)
    _resampling.resample(src, expected, filters)
    results = [np.empty_like(expected) for _ in range(8)]

    def work(k):
        for _ in range(5):
            _resampling.resample(src, results[k], filters)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_array_equal(r, expected)


def test_samples_run_on_a_thread_pool():
    pool = thread_pool.ThreadPool(3)
    srcs = [RNG.integers(0, 256, (60 + k, 80, 3), dtype=np.uint8) for k in range(6)]
    outs = [np.empty((31, 45, 3), np.uint8) for _ in srcs]

    def one(i):
        _resize_common.resample_sample(srcs[i], outs[i], "HWC", [0, 0], list(srcs[i].shape[:2]),
                               Interp.INTERP_LINEAR, Interp.INTERP_LINEAR, True)

    _resize_common.map_samples(types_ns.SimpleNamespace(thread_pool=pool), one, len(srcs))
    for src, out in zip(srcs, outs, strict=True):
        (ref,) = run_op(lambda fn, x: fn.resize(x, size=[31, 45]), [[src]], layouts=["HWC"])[0]
        np.testing.assert_array_equal(out, ref)


def test_identity_axes_are_skipped():
    f = _resampling.axis_filter(int(Interp.INTERP_CUBIC), 9, 9, 0.0, 9.0)
    assert f.identity
    img = RNG.integers(0, 256, (9, 9, 3), dtype=np.uint8)
    (out,) = run_op(lambda fn, x: fn.resize(x, size=[9, 9], interp_type=Interp.INTERP_CUBIC),
                    [[img]], layouts=["HWC"])[0]
    np.testing.assert_array_equal(out, img)


def test_pass_order_follows_cost():
    # Downscaling only the width: resampling it first makes the intermediate image smaller.
    fy = _resampling.axis_filter(int(Interp.INTERP_LINEAR), 100, 99, 0.0, 100.0)
    fx = _resampling.axis_filter(int(Interp.INTERP_LINEAR), 100, 20, 0.0, 100.0)
    assert _resampling.pass_order((100, 100), [fy, fx]) == [1, 0]
    assert _resampling.pass_order((100, 100), [fx, fy]) == [0, 1]


# -- output size ------------------------------------------------------------------------------

def _shape(shape, layout="HWC", **kw):
    img = np.zeros(shape, np.uint8)
    return run_op(lambda fn, x: fn.resize(x, **kw), [[img]], layouts=[layout])[0][0].shape


@pytest.mark.parametrize("kwargs, expected", [
    ({"resize_x": 20}, (14, 20, 3)),                      # 37 * 20 / 53 = 13.96
    ({"resize_y": 20}, (20, 29, 3)),
    ({"resize_x": 20, "resize_y": 10}, (10, 20, 3)),
    ({"resize_shorter": 20}, (20, 29, 3)),
    ({"resize_longer": 20}, (14, 20, 3)),
    ({"resize_shorter": 15.5}, (16, 22, 3)),              # 15.5 rounds up
    ({"size": [20.5, 30.5]}, (21, 31, 3)),
    ({"size": 20}, (20, 20, 3)),
    ({"size": [20, 20], "mode": "not_larger"}, (14, 20, 3)),
    ({"size": [20, 20], "mode": "not_smaller"}, (20, 29, 3)),
    ({"size": [20, 0], "mode": "stretch"}, (20, 53, 3)),
    ({"size": [0, 0]}, (37, 53, 3)),
    ({"resize_shorter": 100, "max_size": 120}, (84, 120, 3)),
    ({"resize_shorter": 100, "max_size": [120, 200]}, (100, 143, 3)),
    ({"size": [100, 100], "max_size": [50, 60]}, (50, 60, 3)),
    ({"size": [100, 100], "max_size": [50, 60], "mode": "not_larger"}, (42, 60, 3)),
    ({"size": [10, 10], "max_size": -5}, (10, 10, 3)),
    ({"size": [0.4, 0]}, (1, 1, 3)),
    ({"resize_x": -20}, (14, 20, 3)),
    ({"size": [10, 10], "roi_start": [0, 10], "roi_end": [37, 30], "mode": "not_larger"},
     (10, 5, 3)),
    ({"resize_y": 20, "roi_start": [0, 10], "roi_end": [37, 30]}, (20, 11, 3)),
    ({"resize_x": 20, "roi_start": [0, 0.2], "roi_end": [1, 0.7], "roi_relative": True},
     (28, 20, 3)),
])
def test_output_size(kwargs, expected):
    assert _shape((37, 53, 3), **kwargs) == expected


def test_output_size_3d_uses_geometric_mean():
    # depth scale = sqrt(20 / 40 * 10 / 50) = 0.316 -> 30 * 0.316 = 9.5
    assert _shape((30, 40, 50, 1), "DHWC", size=[0, 20, 10]) == (9, 20, 10, 1)
    assert _shape((30, 40, 50, 1), "DHWC", resize_x=10) == (6, 8, 10, 1)
    assert _shape((4, 3, 30, 40), "FCHW", size=[15, 20]) == (4, 3, 15, 20)


@pytest.mark.parametrize("kwargs", [{"resize_x": 9, "resize_y": 7}, {"size": [7, 9.5]},
                                    {"resize_x": 9}, {"resize_shorter": 8}])
def test_sizes_remembered_across_batches_equal_fresh_ones(kwargs):
    # Batches share extents along one axis only; with every axis given, each axis's geometry
    # is remembered on its own, and must equal what a fresh operator computes.
    shapes = [[(20, 30, 3), (13, 17, 3)], [(20, 17, 3), (13, 31, 3)], [(5, 30, 3), (20, 2, 3)]]
    batches = [[RNG.integers(0, 255, s, np.uint8) for s in b] for b in shapes]
    together = run_op(lambda fn, x: fn.resize(x, **kwargs), [[b] for b in batches],
                      iterations=3)
    for batch, outs in zip(batches, together, strict=True):
        alone = run_op(lambda fn, x: fn.resize(x, **kwargs), [batch])
        for a, b in zip(alone[0], outs[0], strict=True):
            np.testing.assert_array_equal(a, b)


def test_empty_samples_keep_empty_extents():
    assert _shape((0, 10, 3), size=[4, 4]) == (0, 4, 3)
    assert _shape((0, 10, 3), resize_y=4) == (0, 10, 3)
    assert _shape((5, 5, 0), size=[4, 4]) == (4, 4, 0)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"resize_x": 27.5}, {"size": [-20, 0]}, {"resize_longer": 40, "max_size": [30, 0]},
    {"size": [25, 25], "mode": "not_smaller", "max_size": 30},
    {"size": [0, 100], "max_size": [20, 200]}, {"size": [10, 0], "max_size": [100, 5]},
    {"resize_x": 20, "roi_start": [5, 5], "roi_end": [5, 30]},
    {"size": [10, 10], "mode": "not_larger", "roi_start": [0, 5], "roi_end": [37, 5]}])
def test_output_size_matches_dali(kwargs):
    img = np.zeros((37, 53, 3), np.uint8)
    ours = run_op(lambda fn, x: fn.resize(x, **kwargs), [[img]], layouts=["HWC"])[0][0]
    real = run_op(lambda fn, x: fn.resize(x, **kwargs), [[img]], layouts=["HWC"], real=True)
    assert ours.shape == real[0][0].shape


def _mirrored(out):
    """(rows reversed, columns reversed) of an output of the coordinate image."""
    return bool(out[0, 0, 0] > out[-1, 0, 0]), bool(out[0, 0, 1] > out[0, -1, 1])


@pytest.mark.parametrize("kwargs, expected", [
    ({"size": [-20, 0]}, (True, False)),
    ({"resize_x": -20}, (False, True)),
    ({"resize_shorter": -20}, (True, True)),
    ({"size": [20, 30], "roi_start": [30, 0], "roi_end": [3, 53]}, (True, False)),
    ({"size": [-20, 30], "roi_start": [30, 0], "roi_end": [3, 53]}, (False, False)),
    # DALI keeps a mirrored ROI only on axes whose size is given
    ({"resize_x": 20, "roi_start": [30, 0], "roi_end": [3, 53]}, (False, False)),
])
def test_mirroring(kwargs, expected):
    yy, xx = np.mgrid[0:37, 0:53]
    img = np.stack([yy, xx], -1).astype(np.float32)
    (out,) = run_op(lambda fn, x: fn.resize(x, **kwargs), [[img]], layouts=["HWC"])[0]
    assert _mirrored(out) == expected


@pytest.mark.parametrize("subpixel, scale", [(True, 37 / 60.4), (False, 37 / 60)])
def test_subpixel_scale_keeps_the_fractional_scale(subpixel, scale):
    img = np.arange(37, dtype=np.float32).reshape(37, 1, 1)
    (out,) = run_op(lambda fn, x: fn.resize(x, size=[60.4, 1], subpixel_scale=subpixel),
                    [[img]], layouts=["HWC"])[0]
    assert out.shape == (60, 1, 1)
    # linear upscaling of a ramp gives the source coordinate of each output centre
    centre = 37 / 2 + (np.arange(60) + 0.5 - 30) * scale - 0.5
    np.testing.assert_allclose(out[2:-2].ravel(), centre[2:-2], atol=1e-4)


# -- per-sample arguments, layouts, outputs ----------------------------------------------------

def test_per_sample_size_and_filters():
    imgs = [RNG.integers(0, 256, (30, 40, 3), dtype=np.uint8) for _ in range(3)]
    sizes = [np.array([10, 20], np.float32), np.array([31, 7], np.float32),
             np.array([15, 0], np.float32)]
    interps = [np.array(int(t), np.int32)
               for t in (Interp.INTERP_NN, Interp.INTERP_CUBIC, Interp.INTERP_LINEAR)]
    outs = run_op(lambda fn, x, s, t: fn.resize(x, size=s, interp_type=t),
                  [imgs, sizes, interps], layouts=["HWC", None, None])[0]
    for img, size, interp, out in zip(imgs, sizes, interps, outs, strict=True):
        (ref,) = run_op(lambda fn, x, s=size, t=interp: fn.resize(
            x, size=[float(v) for v in s], interp_type=Interp(int(t))), [[img]], layouts=["HWC"])[0]
        np.testing.assert_array_equal(out, ref)
    assert [o.shape for o in outs] == [(10, 20, 3), (31, 7, 3), (15, 20, 3)]


def test_per_sample_resize_x_and_roi():
    imgs = [RNG.integers(0, 256, (30, 40, 3), dtype=np.uint8) for _ in range(2)]
    rx = [np.float32(20), np.float32(-10)]
    starts = [np.array([2, 3], np.float32), np.array([0, 0], np.float32)]
    ends = [np.array([28, 33], np.float32), np.array([30, 40], np.float32)]
    outs = run_op(lambda fn, x, r, a, b: fn.resize(x, resize_x=r, roi_start=a, roi_end=b),
                  [imgs, rx, starts, ends], layouts=["HWC", None, None, None])[0]
    assert [o.shape for o in outs] == [(17, 20, 3), (8, 10, 3)]
    (ref,) = run_op(lambda fn, x: fn.resize(x, resize_x=10), [[imgs[1]]], layouts=["HWC"])[0]
    np.testing.assert_array_equal(outs[1], ref[:, ::-1])


def test_layouts_and_save_attrs():
    seq = RNG.integers(0, 256, (3, 15, 21, 3), dtype=np.uint8)
    out, attrs = run_op(lambda fn, x: tuple(fn.resize(x, size=[9, 40], save_attrs=True)),
                        [[seq]], layouts=["FHWC"])
    frames = run_op(lambda fn, x: fn.resize(x, size=[9, 40]), [list(seq)], layouts=["HWC"])[0]
    np.testing.assert_array_equal(out[0], np.stack(frames))
    np.testing.assert_array_equal(attrs[0], [15, 21])
    planar = np.ascontiguousarray(seq[0].transpose(2, 0, 1))
    (chw,) = run_op(lambda fn, x: fn.resize(x, size=[9, 40]), [[planar]], layouts=["CHW"])[0]
    np.testing.assert_array_equal(chw, frames[0].transpose(2, 0, 1))


def test_layoutless_input_is_hwc():
    img = RNG.integers(0, 256, (10, 12, 3), dtype=np.uint8)
    (a,) = run_op(lambda fn, x: fn.resize(x, size=[5, 6]), [[img]])[0]
    (b,) = run_op(lambda fn, x: fn.resize(x, size=[5, 6]), [[img]], layouts=["HWC"])[0]
    np.testing.assert_array_equal(a, b)


def test_float_output_keeps_fractions():
    img = np.array([[[0], [1]]], np.uint8)
    (out,) = run_op(lambda fn, x: fn.resize(x, size=[1, 1], dtype=types.FLOAT), [[img]],
                    layouts=["HWC"])[0]
    assert out.dtype == np.float32 and out.item() == 0.5


def test_performance_only_arguments_are_accepted():
    img = RNG.integers(0, 256, (10, 12, 3), dtype=np.uint8)
    (a,) = run_op(lambda fn, x: fn.resize(x, size=[5, 6], minibatch_size=1,
                                          temp_buffer_hint=1 << 20), [[img]], layouts=["HWC"])[0]
    (b,) = run_op(lambda fn, x: fn.resize(x, size=[5, 6]), [[img]], layouts=["HWC"])[0]
    np.testing.assert_array_equal(a, b)
    with pytest.warns(DeprecationWarning, match="image_type"):
        run_op(lambda fn, x: fn.resize(x, size=[5, 6], image_type=types.RGB), [[img]],
               layouts=["HWC"])


# -- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    ({}, r"dali\.fn\.resize.*exactly one way.*none was given"),
    ({"size": [10, 10], "resize_x": 5}, r"dali\.fn\.resize.*exactly one way"),
    ({"resize_shorter": 10, "resize_longer": 10}, "exactly one way"),
    ({"resize_shorter": 10, "mode": "stretch"}, "`resize_shorter`.*`mode`.*mutually exclusive"),
    ({"size": [10, 10], "mode": "bogus"}, r"argument `mode`.*bogus"),
    ({"size": [10, 10, 10]}, r"argument `size` expects one value or 2 values"),
    ({"size": [10, 10], "max_size": [1, 2, 3]}, "argument `max_size`"),
    ({"size": [10, 10], "roi_start": [1, 2]}, "`roi_start` and `roi_end` must be given"),
    ({"size": [10, 10], "roi_start": [1, 2, 3], "roi_end": [4, 5, 6]}, "argument `roi_start`"),
    ({"size": [10, 10], "dtype": types.INT32}, r"argument `dtype`.*input type \(uint8\) or float"),
    ({"size": [float("nan"), 10]}, "must be finite"),
])
def test_argument_errors(kwargs, match):
    img = np.zeros((8, 8, 3), np.uint8)
    with pytest.raises(PipelineError, match=match):
        run_op(lambda fn, x: fn.resize(x, **kwargs), [[img]], layouts=["HWC"])


def test_input_errors():
    with pytest.raises(PipelineError, match=r"dali\.fn\.resize.*unsupported input type int32"):
        run_op(lambda fn, x: fn.resize(x, size=[4, 4]), [[np.zeros((8, 8, 3), np.int32)]],
               layouts=["HWC"])
    with pytest.raises(PipelineError, match=r'layout "HW" is not supported'):
        run_op(lambda fn, x: fn.resize(x, size=[4, 4]), [[np.zeros((8, 8), np.uint8)]],
               layouts=["HW"])
    with pytest.raises(PipelineError, match="2 dimensions without a layout"):
        run_op(lambda fn, x: fn.resize(x, size=[4, 4]), [[np.zeros((8, 8), np.uint8)]])


def test_definition_time_errors():
    img = np.zeros((8, 8, 3), np.uint8)
    with pytest.raises(ValueError, match="size"):
        run_op(lambda fn, x: fn.resize(x, size="ab"), [[img]], layouts=["HWC"])
    with pytest.raises(KeyError, match="resize_w"):
        run_op(lambda fn, x: fn.resize(x, resize_w=3), [[img]], layouts=["HWC"])


def test_bad_per_sample_interpolation():
    imgs = [np.zeros((8, 8, 3), np.uint8)] * 2
    with pytest.raises(PipelineError, match=r"dali\.fn\.resize: argument `interp_type`.*77"):
        run_op(lambda fn, x, t: fn.resize(x, size=[4, 4], interp_type=t),
               [imgs, [np.int32(1), np.int32(77)]], layouts=["HWC", None])
    with pytest.raises(ValueError, match="interp_type"):
        run_op(lambda fn, x: fn.resize(x, size=[4, 4], interp_type=99), [imgs[:1]],
               layouts=["HWC"])


def test_bad_per_sample_size():
    imgs = [np.zeros((8, 8, 3), np.uint8)] * 2
    sizes = [np.array([4, 4], np.float32), np.array([4, 4, 4], np.float32)]
    with pytest.raises(PipelineError, match=r"argument `size`.*got 3") as e:
        run_op(lambda fn, x, s: fn.resize(x, size=s), [imgs, sizes], layouts=["HWC", None])
    assert e.value.sample == 1


def test_batches_of_repeated_shapes_equal_fresh_runs():
    """The per-batch plan memo (shapes and regions per batch of input shapes) and the
    constant filter codes give what a fresh pipeline gives, batch after batch, when the
    shapes repeat, change and come back."""
    rng = np.random.default_rng(7)
    small = [rng.integers(0, 256, (8, 8, 3), dtype=np.uint8) for _ in range(3)]
    mixed = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in ((5, 9), (12, 7), (8, 8))]

    def build(fn, x):
        return fn.resize(x, resize_x=5, resize_y=3, min_filter=types.INTERP_CUBIC,
                         mag_filter=types.INTERP_NN)

    fresh = [run_op(build, [b], layouts=["HWC"])[0] for b in (small, mixed)]
    runs = run_op(build, [[small], [mixed], [small], [mixed]], iterations=4, layouts=["HWC"])
    for k, (out,) in enumerate(runs):
        want = fresh[k % 2]
        assert [o.shape for o in out] == [w.shape for w in want]
        for o, w in zip(out, want, strict=True):
            np.testing.assert_array_equal(o, w)
