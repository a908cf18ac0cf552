"""convolution.separable_batch and filter_batch against NumPy: windows, border modes, channels
and parts, the integer stores (SIMD and scalar tails alike), the pool, argument checks."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool
from filter_utils import conv_axis

from dali._ext.kernels import convolution as kernel

F32 = np.float32
PADS = {kernel.BORDER_REFLECT_101: "reflect", kernel.BORDER_REFLECT_1001: "symmetric",
        kernel.BORDER_WRAP: "wrap", kernel.BORDER_CLAMP: "edge",
        kernel.BORDER_CONSTANT: "constant"}


def _geo(shapes, nd=2, channels=True):
    return np.array([[1, nd, *s[:nd], *([1] * (3 - nd)), s[-1] if channels else 1]
                     for s in shapes], np.int64)


def _filter_ref(x, f, anchor, mode, fill):
    ay, ax = anchor
    fh, fw = f.shape
    kw = {"constant_values": fill} if mode == "constant" else {}
    p = np.pad(x.astype(F32), ((ay, fh - 1 - ay), (ax, fw - 1 - ax), (0, 0)), mode=mode, **kw)
    acc = np.zeros(x.shape, F32)
    for i in range(fh):
        for j in range(fw):
            acc = (acc + f[i, j] * p[i:i + x.shape[0], j:j + x.shape[1]]).astype(F32)
    return acc


@pytest.mark.parametrize("border", list(PADS))
def test_filter_border_modes(border):
    rng = np.random.default_rng(border)
    shapes = [(9, 37, 3), (1, 1, 2), (13, 5, 1)]
    xs = [rng.random(s).astype(F32) * 100 for s in shapes]
    fs = [rng.uniform(-1, 1, (3, 7)).astype(F32), np.ones((1, 1), F32),
          rng.uniform(-1, 1, (15, 2)).astype(F32)]      # larger than the sample: repeated
    anchors = np.array([[1, 3], [0, 0], [14, 0]], np.int64)
    fills = np.array([2.5, 0, -3], F32)
    dst = BatchStorage.from_arrays([np.zeros(s, F32) for s in shapes])
    index = np.array([[0, 3, 7], [21, 1, 1], [22, 15, 2]], np.int64)
    flat = np.concatenate([f.ravel() for f in fs])
    geo = _geo(shapes)
    kernel.filter_batch(ThreadPool(2), BatchStorage.from_arrays(xs), dst, geo, geo, flat, index,
                        anchors, border, fills)
    for x, f, a, v, o in zip(xs, fs, anchors, fills, dst.samples(), strict=True):
        np.testing.assert_allclose(o, _filter_ref(x, f, a, PADS[border], v), rtol=1e-5,
                                   atol=1e-4)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16])
def test_integer_stores_round_half_away_and_saturate(dtype):
    info = np.iinfo(dtype)
    vals = np.array([info.min - 10.0, info.min, -2.5, -1.5, -0.5, 0.49999997, 0.5, 1.5, 2.5,
                     info.max - 0.5, info.max + 7.0, np.nan, np.inf, -np.inf] * 3, F32)
    n = len(vals)                                  # 42: SIMD blocks and a scalar tail
    src = BatchStorage.from_arrays([vals.reshape(1, n, 1)])
    dst = BatchStorage.from_arrays([np.zeros((1, n, 1), dtype)])
    geo = _geo([(1, n, 1)])
    windows = np.ones(1, F32)
    kernel.separable_batch(None, src, dst, geo, windows, np.array([[[[0, 1]] * 3]], np.int64),
                           np.ones((1, 1), F32))
    v = np.nan_to_num(vals.astype(np.float64), nan=0.0)
    want = np.clip(np.trunc(v + np.copysign(0.5, v)), info.min, info.max).astype(dtype)
    ok = np.isfinite(vals)
    np.testing.assert_array_equal(dst.samples()[0].ravel()[ok], want[ok])
    out = dst.samples()[0].ravel()
    assert set(out[np.isinf(vals)].tolist()) == {info.min, info.max}
    assert (out[np.isnan(vals)] == 0).all()


def test_separable_volume_and_terms():
    rng = np.random.default_rng(3)
    x = rng.random((4, 5, 6)).astype(F32)
    w1, w3 = np.array([1, 2, 1], F32), np.array([-1, 0, 1], F32)
    windows = np.concatenate([w1, w3, [1]]).astype(F32)
    index = np.array([[[[0, 3], [3, 3], [6, 1]], [[3, 3], [6, 1], [0, 3]]]], np.int64)
    scales = np.array([[0.5, 2.0]], F32)
    dst = BatchStorage.from_arrays([np.zeros_like(x)])
    kernel.separable_batch(None, BatchStorage.from_arrays([x]), dst,
                           _geo([x.shape], nd=3, channels=False), windows, index, scales)
    t0 = conv_axis(conv_axis(conv_axis(x, [1], 2), w3, 1), w1, 0)
    t1 = conv_axis(conv_axis(conv_axis(x, w1, 2), [1], 1), w3, 0)
    want = (F32(0.5) * t0 + F32(2.0) * t1).astype(F32)
    np.testing.assert_array_equal(dst.samples()[0], want)


def test_gaussian_window():
    w = kernel.gaussian_window(1.0, 7)
    x = np.arange(-3, 4)
    g = np.exp(-x * x / 2.0)
    np.testing.assert_allclose(w, g / g.sum(), rtol=1e-6)
    assert kernel.gaussian_window(0.3, 1).tolist() == [1.0]


@pytest.mark.parametrize("border", list(PADS))
def test_small_integer_taps_on_uint8(border):
    # sums of |taps| up to 128 run in int16 (and past it in float32): exact integers either way,
    # rounded and saturated as the float path does, with and without AVX2
    rng = np.random.default_rng(20 + border)
    shapes = [(9, 70, 3), (5, 3, 1), (33, 17, 4)]
    xs = [rng.integers(0, 256, s, dtype=np.uint8) for s in shapes]
    fs = [np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], F32),
          rng.integers(-9, 10, (3, 5)).astype(F32), np.full((2, 4), 16, F32)]
    anchors = np.array([[1, 1], [2, 0], [0, 3]], np.int64)
    fills = np.array([7, 255, 0], F32)
    index = np.array([[0, 3, 3], [9, 3, 5], [24, 2, 4]], np.int64)
    flat = np.concatenate([f.ravel() for f in fs])
    geo = _geo(shapes)
    for on in (True, False):
        kernel.avx2(on)
        try:
            dst = BatchStorage.from_arrays([np.zeros(s, np.uint8) for s in shapes])
            kernel.filter_batch(None, BatchStorage.from_arrays(xs), dst, geo, geo, flat, index,
                                anchors, border, fills)
        finally:
            kernel.avx2(True)
        for x, f, a, v, o in zip(xs, fs, anchors, fills, dst.samples(), strict=True):
            want = np.clip(np.rint(_filter_ref(x, f, a, PADS[border], v)), 0, 255)
            np.testing.assert_array_equal(o, want.astype(np.uint8))


def test_per_sample_sources_read_in_place():
    # an external_source's arrays (one a strided view): the same as from one block
    rng = np.random.default_rng(5)
    xs = [rng.integers(0, 256, (6, 9, 3), dtype=np.uint8),
          rng.integers(0, 256, (8, 14, 3), dtype=np.uint8)[::2, ::2]]
    shapes = [x.shape for x in xs]
    geo = _geo(shapes)
    f = rng.uniform(-1, 1, (3, 3)).astype(F32)
    index = np.array([[0, 3, 3]] * 2, np.int64)
    anchors = np.ones((2, 2), np.int64)
    windows = np.array([0.25, 0.5, 0.25], F32)
    win_index = np.array([[[[0, 3]] * 3]] * 2, np.int64)
    outs = {}
    for kind, src in (("block", BatchStorage.from_arrays(xs)),
                      ("samples", BatchStorage.from_samples(xs))):
        dst = BatchStorage.from_arrays([np.zeros(s, np.uint8) for s in shapes])
        kernel.filter_batch(None, src, dst, geo, geo, f.ravel(), index, anchors,
                            kernel.BORDER_REFLECT_101, np.zeros(2, F32))
        blur = BatchStorage.from_arrays([np.zeros(s, np.uint8) for s in shapes])
        kernel.separable_batch(None, src, blur, geo, windows, win_index, np.ones((2, 1), F32))
        outs[kind] = [*dst.samples(), *blur.samples()]
    for a, b in zip(outs["block"], outs["samples"], strict=True):
        np.testing.assert_array_equal(a, b)


def test_checks():
    x = BatchStorage.from_arrays([np.zeros((4, 4, 1), F32)])
    y = BatchStorage.from_arrays([np.zeros((4, 4, 1), F32)])
    geo = _geo([(4, 4, 1)])
    idx = np.array([[[[0, 1]] * 3]], np.int64)
    with pytest.raises(ValueError, match="odd-sized range"):
        kernel.separable_batch(None, x, y, geo, np.ones(2, F32), np.array([[[[0, 2]] * 3]]),
                               np.ones((1, 1), F32))
    with pytest.raises(ValueError, match="geometry does not match"):
        kernel.separable_batch(None, x, y, _geo([(4, 5, 1)]), np.ones(1, F32), idx,
                               np.ones((1, 1), F32))
    with pytest.raises(TypeError, match="unsupported types"):
        wide = BatchStorage.from_arrays([np.zeros((4, 4, 1), np.uint64)])
        kernel.separable_batch(None, wide, y, geo, np.ones(1, F32), idx, np.ones((1, 1), F32))
    with pytest.raises(ValueError, match="anchor"):
        kernel.filter_batch(None, x, y, geo, geo, np.ones(9, F32), np.array([[0, 3, 3]]),
                            np.array([[3, 0]]), kernel.BORDER_WRAP, np.zeros(1, F32))
    with pytest.raises(ValueError, match="smaller by"):
        kernel.filter_batch(None, x, BatchStorage.from_arrays([np.zeros((3, 3, 1), F32)]), geo,
                            _geo([(3, 3, 1)]), np.ones(9, F32), np.array([[0, 3, 3]]),
                            np.array([[0, 0]]), kernel.BORDER_WRAP, np.zeros(1, F32))


@pytest.mark.parametrize("dtype", [F32, np.uint8])
def test_avx2_and_sse_paths_agree(dtype):
    """Sums, and for uint8 the loads and the stores (halves: weights of 0.5 steps, both
    saturations), are the same on both paths."""
    rng = np.random.default_rng(8)
    shapes = [(31, 45, 3), (7, 70, 1)]
    if dtype == F32:
        xs = [rng.random(s).astype(F32) for s in shapes]
        f = rng.uniform(-1, 1, (3, 5)).astype(F32)
    else:
        xs = [rng.integers(0, 256, s).astype(np.uint8) for s in shapes]
        f = (rng.integers(-4, 5, (3, 5)) * 0.5).astype(F32)
    geo = _geo(shapes)
    outs = []
    was = kernel.avx2()
    try:
        for on in (True, False):
            kernel.avx2(on)
            dst = BatchStorage.from_arrays([np.zeros(s, dtype) for s in shapes])
            kernel.filter_batch(None, BatchStorage.from_arrays(xs), dst, geo, geo, f,
                                np.array([[0, 3, 5]] * 2), np.array([[1, 2]] * 2),
                                kernel.BORDER_REFLECT_101, np.zeros(2, F32))
            outs.append(dst.samples())
    finally:
        kernel.avx2(was)
    for a, b in zip(*outs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_concurrent_calls_share_nothing():
    """Several threads running the kernel at once (each releases the GIL) get what one gets."""
    rng = np.random.default_rng(10)
    shapes = [(40, 50, 3)] * 4
    src = BatchStorage.from_arrays([rng.integers(0, 256, s, dtype=np.uint8) for s in shapes])
    geo = _geo(shapes)
    f = rng.uniform(-1, 1, (5, 5)).astype(F32)
    pool = ThreadPool(2)

    def run(_):
        dst = BatchStorage.from_arrays([np.zeros(s, np.uint8) for s in shapes])
        kernel.filter_batch(pool, src, dst, geo, geo, f, np.array([[0, 5, 5]] * 4),
                            np.array([[2, 2]] * 4), kernel.BORDER_WRAP, np.zeros(4, F32))
        return [s.copy() for s in dst.samples()]

    with ThreadPoolExecutor(4) as ex:
        results = list(ex.map(run, range(8)))
    for r in results[1:]:
        for a, b in zip(r, results[0], strict=True):
            np.testing.assert_array_equal(a, b)
