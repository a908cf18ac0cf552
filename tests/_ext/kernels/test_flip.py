"""The flip kernel: random shapes, element sizes and per-sample axis flags against np.flip,
windows (crops, flipped or not) against numpy slicing, on the caller and on a pool, tiled
large samples, per-sample sources, and the checks made before it runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import flip

RNG = np.random.default_rng(11)


def _batch(shapes, itemsize):
    """Random samples of `shapes` with elements of `itemsize` bytes (opaque void type)."""
    return [np.frombuffer(RNG.integers(0, 256, int(np.prod(s)) * itemsize, np.uint8).tobytes(),
                          dtype=f"V{itemsize}").reshape(s) for s in shapes]


def _flip_all(arrays, flags, pool):
    src = BatchStorage.from_arrays(arrays)
    dst = BatchStorage.allocate(src.dtype, [a.shape for a in arrays])
    flip.flip_batch(pool, src, dst, flags)
    return dst.samples()


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.parametrize("itemsize", [1, 2, 3, 4, 5, 8, 12, 16, 24])
def test_random_shapes_and_flags_equal_numpy(threads, itemsize):
    pool = ThreadPool(threads) if threads else None
    for ndim in range(1, 6):
        shapes = [tuple(int(e) for e in RNG.integers(0, 7, ndim)) for _ in range(6)]
        shapes.append((1,) * ndim)
        flags = RNG.integers(0, 2, (len(shapes), ndim)).astype(np.uint8)
        flags[0] = 0                                  # one sample not flipped at all
        flags[1] = 1                                  # one flipped along every axis
        arrays = _batch(shapes, itemsize)
        for a, f, out in zip(arrays, flags, _flip_all(arrays, flags, pool), strict=True):
            want = np.flip(a, axis=tuple(int(d) for d in np.flatnonzero(f)))
            assert out.tobytes() == want.tobytes(), (a.shape, f)


@pytest.mark.parametrize("flags", [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]])
def test_large_samples_are_tiled_and_equal_numpy(flags):
    # 1.2 MB samples: several work items per sample along the outermost collapsed axis
    arrays = [RNG.integers(0, 256, (700, 600, 3), np.uint8) for _ in range(2)]
    flags = np.array([flags, [1, 1, 1]], np.uint8)
    for a, f, out in zip(arrays, flags, _flip_all(arrays, flags, ThreadPool(2)), strict=True):
        np.testing.assert_array_equal(out, np.flip(a, tuple(int(d) for d in np.flatnonzero(f))))


def test_any_element_type_is_flipped_bit_for_bit():
    a = np.array([[1.5, np.nan, -0.0], [np.inf, 2.0, 3.0]], np.float64)
    (out,) = _flip_all([a], np.array([[1, 1]], np.uint8), None)
    assert out.tobytes() == a[::-1, ::-1].tobytes()


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.parametrize("itemsize", [1, 2, 3, 4, 5, 12, 24])
def test_random_windows_equal_numpy_slices(threads, itemsize):
    pool = ThreadPool(threads) if threads else None
    for ndim in range(1, 6):
        shapes = [tuple(int(e) for e in RNG.integers(0, 7, ndim)) for _ in range(8)]
        shapes.append((1,) * ndim)
        arrays = _batch(shapes, itemsize)
        windows = [tuple(int(RNG.integers(0, e + 1)) for e in s) for s in shapes]
        windows[0] = shapes[0]                        # one whole sample
        anchors = np.array([[int(RNG.integers(0, e - w + 1))
                             for e, w in zip(s, win, strict=True)]
                            for s, win in zip(shapes, windows, strict=True)], np.int64)
        flags = RNG.integers(0, 2, (len(shapes), ndim)).astype(np.uint8)
        flags[:2] = 0                                 # plain crops
        src = BatchStorage.from_arrays(arrays)
        dst = BatchStorage.allocate(src.dtype, windows)
        flip.flip_batch(pool, src, dst, flags, anchors)
        for a, w, at, f, out in zip(arrays, windows, anchors, flags, dst.samples(), strict=True):
            cut = a[tuple(slice(o, o + e) for o, e in zip(at, w, strict=True))]
            want = np.flip(cut, axis=tuple(int(d) for d in np.flatnonzero(f)))
            assert out.tobytes() == want.tobytes(), (a.shape, w, at, f)


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.parametrize("itemsize", [1, 3, 4, 12])
def test_windows_placed_in_larger_destinations_leave_the_rest(threads, itemsize):
    pool = ThreadPool(threads) if threads else None
    for ndim in range(1, 5):
        src_shapes = [tuple(int(e) for e in RNG.integers(0, 7, ndim)) for _ in range(8)]
        dst_shapes = [tuple(int(e) for e in RNG.integers(0, 7, ndim)) for _ in range(8)]
        ext = np.minimum(src_shapes, dst_shapes)
        ext = np.array([[int(RNG.integers(0, e + 1)) for e in row] for row in ext], np.int64)
        at = np.array([[int(RNG.integers(0, s - e + 1)) for s, e in zip(sh, row, strict=True)]
                       for sh, row in zip(src_shapes, ext, strict=True)], np.int64)
        to = np.array([[int(RNG.integers(0, s - e + 1)) for s, e in zip(sh, row, strict=True)]
                       for sh, row in zip(dst_shapes, ext, strict=True)], np.int64)
        flags = RNG.integers(0, 2, (8, ndim)).astype(np.uint8)
        arrays = _batch(src_shapes, itemsize)
        before = _batch(dst_shapes, itemsize)
        src = BatchStorage.from_arrays(arrays)
        dst = BatchStorage.from_arrays(before)
        flip.flip_batch(pool, src, dst, flags, at, ext, to)
        for a, b, e, i, o, f, out in zip(arrays, before, ext, at, to, flags, dst.samples(),
                                         strict=True):
            want = b.copy()
            cut = a[tuple(slice(p, p + k) for p, k in zip(i, e, strict=True))]
            want[tuple(slice(p, p + k) for p, k in zip(o, e, strict=True))] = np.flip(
                cut, axis=tuple(int(d) for d in np.flatnonzero(f)))
            assert out.tobytes() == want.tobytes(), (a.shape, b.shape, e, i, o, f)


@pytest.mark.parametrize("flags", [[0, 0, 0], [0, 1, 0], [1, 0, 0]])
def test_large_windows_are_tiled_and_equal_numpy(flags):
    arrays = [RNG.integers(0, 256, (900, 700, 3), np.uint8) for _ in range(2)]
    src = BatchStorage.from_arrays(arrays)
    dst = BatchStorage.allocate(np.uint8, [(800, 650, 3), (900, 700, 2)])
    anchors = np.array([[37, 20, 0], [0, 0, 1]])
    flip.flip_batch(ThreadPool(2), src, dst, [flags, flags], anchors)
    axes = tuple(int(d) for d in np.flatnonzero(flags))
    out = dst.samples()
    np.testing.assert_array_equal(out[0], np.flip(arrays[0][37:837, 20:670], axes))
    np.testing.assert_array_equal(out[1], np.flip(arrays[1][:, :, 1:], axes))


def test_inputs_are_checked():
    src = BatchStorage.from_arrays([np.zeros((2, 3), np.uint8)])
    with pytest.raises(ValueError, match="same sample shapes"):
        flip.flip_batch(None, src, BatchStorage.allocate(np.uint8, [(3, 2)]), [[1, 0]])
    with pytest.raises(ValueError, match="same element size"):
        flip.flip_batch(None, src, BatchStorage.allocate(np.int16, [(2, 3)]), [[1, 0]])
    with pytest.raises(ValueError, match="flags must have shape"):
        flip.flip_batch(None, src, BatchStorage.allocate(np.uint8, [(2, 3)]), [[1, 0, 1]])
    with pytest.raises(ValueError, match="inside their source"):
        flip.flip_batch(None, src, BatchStorage.allocate(np.uint8, [(2, 2)]), [[0, 0]],
                        [[0, 2]])
    with pytest.raises(ValueError, match="anchors must have shape"):
        flip.flip_batch(None, src, BatchStorage.allocate(np.uint8, [(2, 2)]), [[0, 0]],
                        [[0, 0, 0]])
    with pytest.raises(ValueError, match="contiguous"):
        flip.flip_batch(None, src, BatchStorage.from_samples([np.zeros((2, 3), np.uint8)]),
                        [[1, 0]])


@pytest.mark.parametrize("anchors", [None, [[1, 0, 0], [0, 2, 1], [0, 0, 0]]])
def test_per_sample_sources_equal_contiguous_ones(anchors):
    # an external_source's arrays, one of them not C-contiguous: read where they are
    arrays = [RNG.integers(0, 256, (5, 6, 3), np.uint8),
              RNG.integers(0, 256, (6, 5, 3), np.uint8).transpose(1, 0, 2),
              RNG.integers(0, 256, (4, 4, 2), np.uint8)]
    shapes = [a.shape for a in arrays] if anchors is None else [(4, 6, 3), (5, 3, 2), (4, 4, 2)]
    flags = [[1, 0, 0], [0, 1, 1], [1, 1, 0]]
    outs = []
    for src in (BatchStorage.from_samples(arrays), BatchStorage.from_arrays(arrays)):
        dst = BatchStorage.allocate(np.uint8, shapes)
        flip.flip_batch(None, src, dst, flags, anchors)
        outs.append(dst.samples())
    for per_sample, contiguous in zip(*outs, strict=True):
        np.testing.assert_array_equal(per_sample, contiguous)
    np.testing.assert_array_equal(outs[0][0], np.flip(arrays[0][1:] if anchors else arrays[0],
                                                      0))


@pytest.mark.parametrize("anchored", [False, True])
def test_rgb_rows_reversed_at_every_width(anchored):
    # 3-byte pixels reversed five at a time (flip.h `dali_flip_reverse_3`): every width up to
    # a few steps, each row's neighbours left as they were, windows inside wider rows.
    for w in range(1, 24):
        x = RNG.integers(0, 256, (4, w + 4, 3), np.uint8)
        src = BatchStorage.from_arrays([x])
        dst = BatchStorage.allocate(np.uint8, [(2, w, 3)])
        dst.samples()[0][...] = 7
        if anchored:
            flip.flip_batch(None, src, dst, np.array([[1, 1, 0]], np.uint8),
                            np.array([[1, 2, 0]]), np.array([[2, w, 3]]))
            want = x[1:3, 2:2 + w][::-1, ::-1]
        else:
            wide = BatchStorage.from_arrays([np.ascontiguousarray(x[:2, :w])])
            flip.flip_batch(None, wide, dst, np.array([[0, 1, 0]], np.uint8))
            want = x[:2, :w][:, ::-1]
        np.testing.assert_array_equal(dst.samples()[0], want)
