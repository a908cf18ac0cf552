"""The colour kernels' batch entry points: every sample on the pool without the GIL, cut into
parts with a matrix each, the uint8 table paths equal to the arithmetic, the values against
NumPy, and every sample checked before any runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import color

RNG = np.random.default_rng(3)
TYPES = [np.uint8, np.int16, np.int32, np.float32, np.float16]


def reference(src, mat, off, out_dtype):
    """mat @ pixel + off in float32, summed left to right, converted as DALI does."""
    cout, cin = mat.shape
    x = src.reshape(-1, cin).astype(np.float32)
    acc = np.zeros((len(x), cout), np.float32)
    for c in range(cout):
        for k in range(cin):
            acc[:, c] = acc[:, c] + mat[c, k] * x[:, k]
        acc[:, c] = acc[:, c] + off[c]
    if np.dtype(out_dtype).kind != "f":
        info = np.iinfo(out_dtype)
        wide = acc.astype(np.float64)                  # exact: no rounding in the + 0.5
        return np.clip(np.sign(wide) * np.floor(np.abs(wide) + 0.5), info.min,
                       info.max).astype(out_dtype)
    with np.errstate(over="ignore"):                   # float16 overflows to infinity
        return acc.astype(out_dtype)


def _values(n, dtype):
    if np.dtype(dtype).kind == "f":
        return RNG.uniform(-50, 300, n).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(max(info.min, -40000), min(info.max, 70000), n).astype(dtype)


@pytest.mark.parametrize("src_t", TYPES)
@pytest.mark.parametrize("dst_t", TYPES)
@pytest.mark.parametrize("channels", [1, 3])
def test_every_type_pair_equals_numpy(src_t, dst_t, channels):
    """Large samples (uint8: the table paths) and tiny ones (the arithmetic) of every type
    pair, per-sample matrices."""
    pixels = [70000, 2000, 5, 1, 0, 300]
    srcs = [_values(p * channels, src_t).reshape(p, channels) for p in pixels]
    dsts = [np.zeros((p, channels), dst_t) for p in pixels]
    mats = RNG.uniform(-1, 1.5, (len(pixels), channels, channels)).astype(np.float32)
    offs = RNG.uniform(-5, 5, (len(pixels), channels)).astype(np.float32)
    color.linear_batch(ThreadPool(2), srcs, dsts, mats, offs)
    for i, (s, d) in enumerate(zip(srcs, dsts, strict=True)):
        np.testing.assert_array_equal(d, reference(s, mats[i], offs[i], dst_t), f"sample {i}")


def test_uint8_tables_equal_the_arithmetic_on_every_value():
    """Every uint8 value through the 1x1 table and every colour channel through the 3x3
    products, against the arithmetic of a tiny sample (below the table threshold), with
    factors that reach saturation and rounding ties."""
    values = np.arange(256, dtype=np.uint8)
    rgb = RNG.integers(0, 256, (5000, 3), dtype=np.uint8)
    rgb[:256] = values[:, None]
    for mat, off in [(np.full((1, 1), 1.5, np.float32), np.full(1, 0.25, np.float32)),
                     (np.full((1, 1), -0.7, np.float32), np.full(1, 200, np.float32))]:
        big = np.tile(values, 8).reshape(-1, 1)
        out = np.zeros_like(big)
        color.linear(big, out, mat, off)
        small = [np.zeros((1, 1), np.uint8) for _ in values]
        color.linear_batch(None, [v.reshape(1, 1) for v in values], small,
                           np.repeat(mat[None], 256, 0), np.repeat(off[None], 256, 0))
        np.testing.assert_array_equal(out[:256, 0], np.concatenate(small)[:, 0])
        np.testing.assert_array_equal(out, reference(big, mat, off, np.uint8))
    mat = RNG.uniform(-1, 1.5, (3, 3)).astype(np.float32)
    off = np.array([0.5, -3, 128], np.float32)
    for dst_t in TYPES:
        out = np.zeros(rgb.shape, dst_t)
        color.linear(rgb, out, mat, off)
        np.testing.assert_array_equal(out, reference(rgb, mat, off, dst_t))


@pytest.mark.parametrize("threads", [None, 1, 2])
def test_parts_take_their_own_matrix(threads):
    """A sample of 4 frames with a matrix per frame, large enough to be cut into tiles, next
    to one-part samples; any number of threads gives the same bits."""
    seq = RNG.integers(0, 256, (4, 300, 100, 3), dtype=np.uint8)
    img = RNG.integers(0, 256, (7, 5, 3), dtype=np.uint8)
    empty = np.zeros((0, 4, 4, 3), np.uint8)
    srcs = [seq, img, empty]
    dsts = [np.zeros(s.shape, np.float32) for s in srcs]
    mats = RNG.uniform(-1, 1.5, (5, 3, 3)).astype(np.float32)
    offs = RNG.uniform(-5, 5, (5, 3)).astype(np.float32)
    color.linear_batch(ThreadPool(threads) if threads else None, srcs, dsts, mats, offs,
                       np.array([4, 1, 0]))
    for f in range(4):
        np.testing.assert_array_equal(dsts[0][f].reshape(-1, 3),
                                      reference(seq[f], mats[f], offs[f], np.float32))
    np.testing.assert_array_equal(dsts[1].reshape(-1, 3),
                                  reference(img, mats[4], offs[4], np.float32))


def test_convert_space_batch_equals_one_call_each():
    srcs = [RNG.integers(0, 256, (n, 3), np.uint8) for n in (100000, 17, 0)]
    batch = [np.zeros((len(s), 1), np.uint8) for s in srcs]
    color.convert_space_batch(ThreadPool(2), srcs, batch, "to_gray", 2)
    for s, b in zip(srcs, batch, strict=True):
        one = np.zeros_like(b)
        color.convert_space(s, one, "to_gray", 2)
        ref = (s[:, ::-1].astype(np.int64) @ [9798, 19235, 3735] + (1 << 14)) >> 15
        np.testing.assert_array_equal(b, one)
        np.testing.assert_array_equal(b[:, 0], ref)


def test_every_sample_is_checked_before_any_runs():
    src = np.full((10, 3), 7, np.uint8)
    dst = np.zeros((10, 3), np.uint8)
    eye = np.eye(3, dtype=np.float32)[None].repeat(2, 0)
    off = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="same number of pixels"):
        color.linear_batch(ThreadPool(2), [src, src], [dst, np.zeros((9, 3), np.uint8)],
                           eye, off)
    with pytest.raises(TypeError, match="differ from the first sample's"):
        color.linear_batch(None, [src, src.astype(np.int16)], [dst, dst], eye, off)
    with pytest.raises(ValueError, match="2 parts but 1 matrices"):
        color.linear_batch(None, [src, src], [dst, dst], eye[:1], off[:1])
    with pytest.raises(ValueError, match="do not split into 3 parts"):
        color.linear_batch(None, [src, src], [dst, dst], eye, off, [3, 1])
    assert not dst.any()
    with pytest.raises(ValueError, match=r"same number of pixels of 3 and 1 channels"):
        color.convert_space_batch(None, [src, src], [np.zeros((10, 1), np.uint8), dst],
                                  "to_gray")
    with pytest.raises(TypeError):
        color.convert_space(src.astype(np.int16), dst, "swap_rb")


@pytest.fixture(params=[True, False], ids=["avx2", "sse41"])
def simd_level(request):
    was = color.simd_avx2()
    color.simd_avx2(request.param)
    yield
    color.simd_avx2(was)


@pytest.mark.parametrize("mul, add", [(1.3, -20.0), (0.5, 0.25), (0.5, 0.5), (-1.0, 255.0),
                                      (1e30, 0.0), (0.0, np.nan), (0.0039215689, 127.5),
                                      (1.0, -0.5), (3.0, -np.inf)])
def test_uint8_affine_simd_paths_equal_the_scalar_on_every_value(simd_level, mul, add):
    """uint8 -> uint8 1x1 maps run 32 (AVX2) or 16 (SSE4.1) values at a time, then one by
    one: every value at every position of a vector, and the tail, as the float32 formula."""
    src = np.tile(np.arange(256, dtype=np.uint8), 9)[:2 * 256 + 37].reshape(-1, 1)
    src = np.concatenate([src, np.roll(src, 7)])
    dst = np.empty_like(src)
    color.linear(src, dst, [[mul]], [add])
    with np.errstate(invalid="ignore", over="ignore"):
        v = src.astype(np.float32) * np.float32(mul) + np.float32(add)
    wide = np.nan_to_num(v.astype(np.float64), nan=0.0)
    want = np.clip(np.floor(np.abs(wide) + 0.5) * np.sign(wide), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(dst, want)


@pytest.mark.parametrize("red", [0, 2])
@pytest.mark.parametrize("n", [1, 17, 33, 34, 35, 99, 1000])
def test_to_gray_simd_paths_equal_the_integer_formula(simd_level, red, n):
    src = RNG.integers(0, 256, (n, 3), dtype=np.uint8)
    src[:4] = [[255, 255, 255], [0, 0, 0], [255, 0, 0], [0, 0, 255]][:n]
    dst = np.empty((n, 1), np.uint8)
    color.convert_space(src, dst, "to_gray", red)
    s = src.astype(np.int64)
    want = (s[:, red] * 9798 + s[:, 1] * 19235 + s[:, 2 - red] * 3735 + 16384) >> 15
    np.testing.assert_array_equal(dst[:, 0], want)


@pytest.mark.parametrize("contiguous", [True, False])
def test_storage_entry_points_equal_the_list_ones(contiguous):
    """linear_storage / convert_space_storage on whole batches (contiguous or per-sample
    input) give what linear_batch / convert_space_batch give; one matrix serves every part,
    adjacent small samples run as one piece."""
    shapes = [(8, 8, 3), (5, 7, 3), (0, 4, 3), (300, 250, 3), (2, 3, 3)]
    srcs = [RNG.integers(0, 256, s, dtype=np.uint8) for s in shapes]
    src = (BatchStorage.from_arrays if contiguous else BatchStorage.from_samples)(srcs)
    mats = RNG.uniform(-1, 2, (len(shapes), 3, 3)).astype(np.float32)
    offs = RNG.uniform(-50, 50, (len(shapes), 3)).astype(np.float32)
    for m, o in [(mats, offs), (mats[:1], offs[:1])]:
        dst = BatchStorage.allocate(np.dtype(np.float32), shapes)
        color.linear_storage(ThreadPool(2), src, dst, m, o)
        want = [np.zeros(s, np.float32) for s in shapes]
        color.linear_batch(None, srcs, want, np.broadcast_to(m, mats.shape),
                           np.broadcast_to(o, offs.shape))
        for i, w in enumerate(want):
            np.testing.assert_array_equal(dst.sample(i), w)
    gray = BatchStorage.allocate(np.dtype(np.uint8), [s[:2] + (1,) for s in shapes])
    color.convert_space_storage(ThreadPool(2), src, gray, "to_gray", 2)
    for i, s in enumerate(srcs):
        want = np.zeros(s.shape[:2] + (1,), np.uint8)
        color.convert_space(s, want, "to_gray", 2)
        np.testing.assert_array_equal(gray.sample(i), want)
    with pytest.raises(ValueError, match="5 parts but 2 matrices"):
        color.linear_storage(None, src, dst, mats[:2], offs[:2])


@pytest.mark.parametrize("n", [1, 5, 6, 9, 10, 11, 4099])
def test_uint8_3x3_simd_paths_equal_the_float32_sums(simd_level, n):
    """uint8 -> uint8 3x3 maps run 8 (AVX2) or 4 (SSE4.1) pixels at a time, then one by one:
    every channel value, saturation both ways and halves, as the float32 sums."""
    src = RNG.integers(0, 256, (n, 3), dtype=np.uint8)
    src[:min(n, 256), 0] = np.arange(min(n, 256))
    for mat, off in [(RNG.uniform(-1.5, 1.5, (3, 3)), RNG.uniform(-60, 60, 3)),
                     (np.eye(3) * 0.5, [0.0, 0.25, -0.5]), (np.ones((3, 3)), [-300, 1, 0])]:
        mat, off = np.asarray(mat, np.float32), np.asarray(off, np.float32)
        dst = np.empty_like(src)
        color.linear(src, dst, mat, off)
        np.testing.assert_array_equal(dst, reference(src, mat, off, np.uint8))
