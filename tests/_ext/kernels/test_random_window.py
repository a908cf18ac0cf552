"""The random_window kernel: its draws (the numbers of `rng.uniform`, the workspace's streams, and
the exponents of the aspect ratios as NumPy computes them in float32, for any number of
attempts and samples, sample ids past 2^32 and other streams, on the AVX2 and the scalar
paths), the whole batch's windows in one call against the NumPy formulation, the outputs it
takes, and the image sizes of shape tensors."""

import concurrent.futures

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage

from dali._ext import rng
from dali._ext.kernels import random_window
from dali.ops import _random_window

RNG = np.random.default_rng(8)


@pytest.fixture(params=[True, False], ids=["avx2", "scalar"])
def philox_path(request):
    was = random_window.philox_avx2()
    random_window.philox_avx2(request.param)
    yield
    random_window.philox_avx2(was)


@pytest.mark.parametrize("attempts", [0, 1, 3, 10, 37])
@pytest.mark.parametrize("stream", [0, 5])
@pytest.mark.parametrize("n", [5, 8, 21])
def test_draws_are_the_workspace_streams(attempts, stream, n, philox_path):
    key = rng.mix_key(987654321, 4)
    ids = np.array([0, 1, 63, 2**32 + 9, 12345678901234] + list(range(1000, 1000 + n - 5)),
                   np.int64)
    aspect = np.float32(0.6), np.float32(1.9)
    log_lo = np.log(aspect[0])
    log_span = np.log(aspect[1]) - log_lo
    draws = np.empty((len(ids), 2 * attempts + 2))
    args = np.empty((len(ids), attempts), np.float32)
    random_window.draw_uniforms(key, ids, stream, log_lo, log_span, draws, args)
    want = rng.uniform(key, ids, np.full(len(ids), 2 * attempts + 2, np.int64), stream)
    np.testing.assert_array_equal(draws, want.reshape(len(ids), -1))
    r = draws[:, 1:2 * attempts:2].astype(np.float32)
    np.testing.assert_array_equal(args, log_lo + r * log_span)


def test_draws_check_their_arrays():
    with pytest.raises(ValueError, match="same samples"):
        random_window.draw_uniforms(1, np.arange(3, dtype=np.int64), 0, 0.0, 1.0,
                                    np.empty((3, 6)), np.empty((3, 3), np.float32))


def _terms(heights, widths, area, aspect):
    return _random_window._shape_terms(np.asarray(heights, np.int64),
                                       np.asarray(widths, np.int64), area, aspect)


@pytest.mark.parametrize("attempts", [0, 1, 10])
def test_random_windows_are_the_draws_then_the_windows(attempts):
    """One call (draws, NumPy's exp, attempts) gives the windows of `crop_windows` on the
    workspace's draws, into int64 or int32 arrays, rows apart or not."""
    n = 50
    heights, widths = RNG.integers(1, 900, n), RNG.integers(1, 900, n)
    area, aspect = [0.1, 0.9], [0.5, 2.0]
    key, ids = rng.mix_key(31, 0), np.arange(7, 7 + n, dtype=np.int64)
    draws = rng.uniform(key, ids, np.full(n, 2 * attempts + 2, np.int64), 0).reshape(n, -1)
    want = _random_window.crop_windows(heights, widths, draws, area, aspect, attempts)
    f32 = np.float32
    log_lo = np.log(f32(aspect[0]))
    for dtype in (np.int64, np.int32):
        out = np.full((n, 4), -1, dtype)
        anchor, shape = np.full((n, 2), -1, dtype), np.full((n, 2), -1, dtype)
        for a, s in ((out[:, :2], out[:, 2:]), (anchor, shape)):
            random_window.random_windows(_terms(heights, widths, area, aspect), key, ids,
                                         attempts, f32(area[0]), f32(area[1]), f32(aspect[0]),
                                         f32(aspect[1]), log_lo,
                                         np.log(f32(aspect[1])) - log_lo, a, s)
        np.testing.assert_array_equal(out, want)
        np.testing.assert_array_equal(np.concatenate([anchor, shape], 1), want)


def test_an_empty_batch_has_no_windows():
    # (a conditional branch no sample takes; NumPy gives the empty outputs zero strides)
    out = np.empty((0, 4), np.int64)
    random_window.random_windows(_terms([], [], [0.1, 1.0], [0.5, 2.0]), 1,
                                 np.empty(0, np.int64), 10, 0.1, 1.0, 0.5, 2.0, 0.0, 1.0,
                                 out[:, :2], out[:, 2:])
    assert out.shape == (0, 4)


def test_windows_check_their_outputs():
    terms = _terms([10, 20], [30, 40], [0.1, 1.0], [0.5, 2.0])
    draws, ratio = np.zeros((2, 4)), np.ones((2, 1), np.float32)
    ok = np.zeros((2, 2), np.int32)
    for anchor, shape in ((np.zeros((2, 2), np.int16), np.zeros((2, 2), np.int16)),
                          (ok, np.zeros((2, 2), np.int64)), (ok, np.zeros((3, 2), np.int32)),
                          (ok, np.zeros((2, 4), np.int32)[:, ::2]),
                          (ok, np.zeros((2, 2), np.int32).T)):
        with pytest.raises(ValueError, match="anchor and shape must be"):
            random_window.draw_windows(terms, draws, ratio, 0.1, 1.0, 0.5, 2.0, anchor, shape)
    with pytest.raises(ValueError, match="same samples and attempts"):
        random_window.draw_windows(terms, draws[:1], ratio, 0.1, 1.0, 0.5, 2.0, ok, ok.copy())
    with pytest.raises(ValueError, match="sample ids"):
        random_window.random_windows(terms, 1, np.arange(3, dtype=np.int64), 1, 0.1, 1.0, 0.5,
                                     2.0, 0.0, 1.0, ok, ok.copy())


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                   np.int64, np.uint64])
@pytest.mark.parametrize("contiguous", [True, False])
def test_image_sizes_of_shape_tensors(dtype, contiguous):
    shapes = [np.array([7, 100, 3]), np.array([120, 5]), np.array([127, 126, 1])]
    make = BatchStorage.from_arrays if contiguous else BatchStorage.from_samples
    bad, hw = random_window.image_sizes(make([s.astype(dtype) for s in shapes]))
    assert bad == -1 and hw.dtype == np.int64
    assert hw.tolist() == [[7, 100], [120, 5], [127, 126]]


def test_image_sizes_name_the_first_bad_sample():
    good, bad = np.array([4, 5], np.int32), np.array([4, 5, 3, 1], np.int32)
    assert random_window.image_sizes(BatchStorage.from_samples([good, bad, bad]))[0] == 1
    two_d = [np.array([[4, 5]], np.int32)] * 2
    assert random_window.image_sizes(BatchStorage.from_arrays(two_d))[0] == 0
    with pytest.raises(ValueError, match="integers"):
        random_window.image_sizes(BatchStorage.from_arrays([np.zeros(2, np.float32)]))


def test_threads_share_the_size_terms():
    """Calls on several threads at once (the GIL released while they draw and choose), one
    SizeTerms for all: the windows of the same calls made one after the other."""
    n, f32 = 64, np.float32
    terms = _terms(RNG.integers(1, 900, n), RNG.integers(1, 900, n), [0.08, 1.0], [0.75, 4 / 3])
    ids = np.arange(n, dtype=np.int64)
    log_lo = np.log(f32(0.75))

    def windows(key):
        anchor, shape = np.empty((n, 2), np.int32), np.empty((n, 2), np.int32)
        for _ in range(50):
            random_window.random_windows(terms, key, ids, 10, f32(0.08), f32(1.0), f32(0.75),
                                         f32(4 / 3), log_lo, np.log(f32(4 / 3)) - log_lo,
                                         anchor, shape)
        return np.concatenate([anchor, shape], 1)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        together = list(pool.map(windows, range(8)))
    for key, got in enumerate(together):
        np.testing.assert_array_equal(got, windows(key))


def _size_terms_numpy(height, width, area, aspect):
    """The NumPy formulation of `size_terms` (float32 like DALI; the kernel must give its bits)."""
    f32 = np.float32
    h_img, w_img = height.astype(f32), width.astype(f32)
    area_lo, area_hi, ar_lo, ar_hi = f32(area[0]), f32(area[1]), f32(aspect[0]), f32(aspect[1])
    min_area = w_img * h_img * area_lo
    max_w = np.maximum(1, (h_img * ar_hi).astype(np.int64))
    max_h = np.maximum(1, (w_img * (f32(1) / ar_lo)).astype(np.int64))
    too_wide = (height * max_w).astype(f32) < min_area
    too_tall = ~too_wide & ((width * max_h).astype(f32) < min_area)
    ratio = w_img / h_img
    h = np.where(ratio < ar_lo, max_h, height)
    w = np.where(ratio > ar_hi, max_w, width)
    scale = np.sqrt(np.minimum(f32(1), area_hi * w_img * h_img / (h * w).astype(f32)))
    h = np.maximum(1, (h.astype(f32) * scale).astype(np.int64))
    w = np.maximum(1, (w.astype(f32) * scale).astype(np.int64))
    h = np.minimum(np.where(too_wide, height, np.where(too_tall, max_h, h)), height)
    w = np.minimum(np.where(too_wide, max_w, np.where(too_tall, width, w)), width)
    return (height, width, h, w, (~(too_wide | too_tall)).view(np.uint8),
            (height * width).astype(f32))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")      # 0 / 0 of empty images
def test_size_terms_equal_numpy():
    """Sizes up to 2^31 (and 0), areas and aspect ratio ranges from narrow to extreme."""
    f32 = np.float32
    for t in range(400):
        n = int(RNG.integers(1, 40))
        top = [3, 50, 5000, 2**20, 2**31][t % 5]
        height = RNG.integers(0 if t % 7 == 0 else 1, top, n)
        width = RNG.integers(0 if t % 11 == 0 else 1, top, n)
        lo = float(RNG.uniform(0, 1))
        area = [0.0, 0.0] if t % 13 == 0 else [lo, float(RNG.uniform(lo, 1.5))]
        lo = float(np.exp(RNG.uniform(-8, 3)))
        aspect = [1e-30, 1e30] if t % 17 == 0 else [lo, lo * float(np.exp(RNG.uniform(0, 6)))]
        got = random_window.size_terms(height, width, f32(area[0]), f32(area[1]),
                                       f32(aspect[0]), f32(aspect[1])).arrays
        for a, b in zip(got, _size_terms_numpy(height, width, area, aspect), strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
