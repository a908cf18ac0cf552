"""The slice kernel: random windows anywhere relative to random samples (contiguous and
per-sample batches), for every border policy and per-channel fill values, against np.pad;
conversions (saturating and plain casts); tiled large samples on a pool; and the checks made
before it runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import slice as kernel

MODES = {kernel.EDGE: "edge", kernel.REFLECT_1001: "symmetric",
         kernel.REFLECT_101: "reflect", kernel.WRAP: "wrap"}


def reference(x, anchor, shape, policy, fill, channel):
    margin = int(np.abs(anchor).max(initial=0) + max(shape, default=0)) + 1
    padded = np.pad(x, margin, mode=MODES.get(policy, "constant"))
    window = zip(anchor, shape, strict=True)
    out = padded[tuple(slice(margin + a, margin + a + s) for a, s in window)]
    if policy != kernel.CONSTANT:
        return out
    inside = np.ones(shape, bool)
    for d in range(x.ndim):
        pos = anchor[d] + np.arange(shape[d])
        index = [None] * x.ndim
        index[d] = slice(None)
        inside &= ((pos >= 0) & (pos < x.shape[d]))[tuple(index)]
    f = fill.reshape([-1 if d == channel and fill.size > 1 else 1 for d in range(x.ndim)])
    return np.where(inside, out, np.broadcast_to(f, shape))


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.parametrize("policy", [kernel.CONSTANT, kernel.EDGE, kernel.REFLECT_1001,
                                    kernel.REFLECT_101, kernel.WRAP])
def test_random_windows_equal_numpy(threads, policy):
    rng = np.random.default_rng(policy)
    pool = ThreadPool(threads) if threads else None
    for trial in range(60):
        ndim = int(rng.integers(1, 5))
        n = 4
        dtype = [np.uint8, np.int16, np.float32, np.float64][trial % 4]
        srcs = [(rng.random(tuple(rng.integers(1, 6, ndim))) * 100).astype(dtype)
                for _ in range(n)]
        anchors = rng.integers(-8, 8, (n, ndim))
        shapes = [tuple(int(e) for e in rng.integers(0, 9, ndim)) for _ in range(n)]
        if trial % 3 == 0:          # windows inside the samples (rows copied whole)
            anchors = np.array([rng.integers(0, x.shape) for x in srcs])
            shapes = [tuple(int(rng.integers(0, e - a + 1)) for e, a in zip(x.shape, at,
                                                                             strict=True))
                      for x, at in zip(srcs, anchors, strict=True)]
        channel = int(rng.integers(0, ndim))
        nfill = int(rng.choice([1, 3]))
        if nfill > 1:
            shapes = [tuple(3 if d == channel else e for d, e in enumerate(s)) for s in shapes]
        fill = rng.integers(-50, 50, (n, nfill)).astype(dtype)
        dst = BatchStorage.allocate(dtype, shapes)
        # every other trial per sample (an external_source's arrays, one of them strided)
        srcs[0] = np.asfortranarray(srcs[0])
        src = BatchStorage.from_samples(srcs) if trial % 2 else BatchStorage.from_arrays(srcs)
        kernel.slice_batch(pool, src, dst, anchors, policy, fill, channel)
        for i, got in enumerate(dst.samples()):
            want = reference(srcs[i], anchors[i], shapes[i], policy, fill[i], channel)
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("threads", [None, 2])
def test_samples_of_one_window_share_their_description(threads):
    """Samples with the previous one's shapes, window, fill values and conversion share their
    description (slice.pyx): runs of such samples with other data, broken by a sample whose
    fill values, conversion, window or shapes differ, each against np.pad."""
    rng = np.random.default_rng(8)
    pool = ThreadPool(threads) if threads else None
    n, shape, window = 14, (5, 4, 3), (8, 6, 3)
    srcs = [rng.integers(0, 250, shape).astype(np.float32) * 1.5 for _ in range(n)]
    srcs[9] = srcs[9][:4]                                   # other input shape
    anchors = np.tile(np.array([[-2, -1, 0]]), (n, 1))
    anchors[11] = [1, -3, 0]                                # other window
    fill = np.tile(np.array([[7, 200, 90]], np.float32), (n, 1))
    fill[5:7] = [1, 2, 3]                                   # other fill values, twice
    cast = np.zeros(n, bool)
    cast[12:] = True                                        # other conversion
    dst = BatchStorage.allocate(np.uint8, [window] * n)
    kernel.slice_batch(pool, BatchStorage.from_samples(srcs), dst, anchors, kernel.CONSTANT,
                       fill.astype(np.uint8), 2, cast)
    for i, got in enumerate(dst.samples()):
        want = reference(srcs[i], anchors[i], window, kernel.CONSTANT, fill[i], 2)
        want = want.astype(np.int64).astype(np.uint8) if cast[i] else \
            np.clip(want, 0, 255).astype(np.uint8)
        np.testing.assert_array_equal(got, want, err_msg=f"sample {i}")


def test_large_samples_are_tiled_on_a_pool():
    rng = np.random.default_rng(1)
    srcs = [rng.integers(0, 256, (300, 400, 3), np.uint8) for _ in range(3)]
    anchors = np.array([[-5, 7, 0], [10, -3, 0], [0, 0, 0]])
    shapes = [(310, 390, 3), (280, 410, 3), (300, 400, 3)]
    dst = BatchStorage.allocate(np.uint8, shapes)
    fill = np.array([[1, 2, 3]] * 3, np.uint8)
    kernel.slice_batch(ThreadPool(3), BatchStorage.from_arrays(srcs), dst, anchors,
                       kernel.CONSTANT, fill, 2)
    for i, got in enumerate(dst.samples()):
        want = np.empty(shapes[i], np.uint8)
        want[...] = fill[i]
        lo = np.maximum(anchors[i], 0)
        hi = np.minimum(anchors[i] + shapes[i], srcs[i].shape)
        want[tuple(slice(a - b, c - b) for a, b, c in zip(lo, anchors[i], hi, strict=True))] = \
            srcs[i][tuple(slice(a, c) for a, c in zip(lo, hi, strict=True))]
        np.testing.assert_array_equal(got, want)


VALUES = np.array([-1e6, -96.5, -1.7, 2.7, 300.5, 7e4, np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("src_type", [np.float32, np.float64, np.float16])
def test_conversions_saturate_or_cast(src_type):
    with np.errstate(over="ignore"):
        x = VALUES.astype(src_type)
    src = BatchStorage.from_arrays([x, x])
    for out_type in (np.uint8, np.float16, np.float32):
        dst = BatchStorage.allocate(out_type, [x.shape, x.shape])
        kernel.slice_batch(None, src, dst, np.zeros((2, 1), np.int64), cast=[False, True])
        saturated, cast = dst.samples()
        wide = x.astype(np.float64)
        if out_type == np.uint8:
            want = np.trunc(np.nan_to_num(np.clip(wide, 0, 255), nan=0)).astype(np.uint8)
            with np.errstate(invalid="ignore"):
                as_int = np.where(np.abs(wide) < 2**31, wide, -2**31).astype(np.int64)
            want_cast = as_int.astype(np.uint8)
        else:
            limit = np.finfo(out_type).max
            narrowing = np.dtype(src_type).itemsize > np.dtype(out_type).itemsize
            want = (np.clip(wide, -limit, limit) if narrowing else wide).astype(out_type)
            with np.errstate(over="ignore"):
                want_cast = wide.astype(out_type)
        np.testing.assert_array_equal(saturated, want)
        np.testing.assert_array_equal(cast, want_cast)


def test_integer_casts_wrap():
    x = np.array([-5, 300, 70000], np.int32)
    dst = BatchStorage.allocate(np.uint8, [x.shape])
    kernel.slice_batch(None, BatchStorage.from_arrays([x]), dst, [[0]], cast=[True])
    np.testing.assert_array_equal(dst.samples()[0], x.astype(np.uint8))


@pytest.mark.parametrize("kwargs, message", [
    ({"anchors": np.zeros((2, 2))}, r"anchors must have shape \(2, 1\)"),
    ({"policy": 9}, "unknown policy 9"),
    ({"fill": np.zeros((2, 2), np.uint8)}, "per-channel fill values need a channel axis"),
    ({"policy": kernel.WRAP, "src": [np.zeros(0, np.uint8)] * 2}, "only the CONSTANT policy"),
    ({"dst_type": np.int16}, "cannot convert uint8 to int16"),
    ({"cast": [True]}, "cast must have 2 values"),
])
def test_checks(kwargs, message):
    src = BatchStorage.from_arrays(kwargs.pop("src", [np.zeros(3, np.uint8)] * 2))
    dst = BatchStorage.allocate(kwargs.pop("dst_type", np.uint8), [(2,), (2,)])
    args = {"anchors": np.zeros((2, 1)), **kwargs}
    with pytest.raises(ValueError, match=message):
        kernel.slice_batch(None, src, dst, **args)
