"""The select_masks kernel (fn.segmentation.select_masks): the table and the sorted lookups
against a Python reference, contiguous and per-sample inputs, the first error of each kind in
batch order, and the checks made before it runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage

from dali._ext.kernels import select_masks

RNG = np.random.default_rng(11)


def _reference(ids, polygons, reindex):
    """Output polygons and source starts of one sample (ids all present, ranges valid)."""
    last = {int(p[0]): p for p in polygons}
    rows, starts, total = [], [], 0
    for k, m in enumerate(ids):
        _, lo, hi = last[int(m)]
        rows.append([k if reindex else m, total, total + hi - lo])
        starts.append(lo)
        total += hi - lo
    return np.array(rows, np.int32).reshape(-1, 3), starts, total


def _batch(n, spread, dtype=np.float32):
    """n samples of polygons whose mask ids are spread over `spread` times their count."""
    ids, polygons, vertices = [], [], []
    for _ in range(n):
        p = int(RNG.integers(0, 30))
        v = int(RNG.integers(1, 40))
        masks = RNG.choice(np.arange(-5, max(p * spread, 1) - 5), p) if p else np.zeros(0)
        lo = RNG.integers(0, v, p)
        hi = np.minimum(lo + RNG.integers(0, 6, p), v)
        polygons.append(np.stack([masks, lo, hi], 1).astype(np.int32).reshape(-1, 3))
        vertices.append((RNG.random((v, int(RNG.integers(1, 4)))) * 100).astype(dtype))
        present = np.unique(masks)
        ids.append(RNG.permutation(present)[:RNG.integers(0, len(present) + 1)].astype(np.int32))
    return ids, polygons, vertices


def _select(ids, polygons, vertices, reindex, contiguous=True):
    make = BatchStorage.from_arrays if contiguous else BatchStorage.from_samples
    return select_masks.select(make(ids), make(polygons), make(vertices), reindex)


@pytest.mark.parametrize("contiguous", [True, False])
@pytest.mark.parametrize("spread", [1, 3, 10**6])       # tables; tables; sorted keys
@pytest.mark.parametrize("reindex", [False, True])
def test_selection_and_copy_equal_reference(spread, reindex, contiguous):
    ids, polygons, vertices = _batch(12, spread, [np.float32, np.int16][spread % 2])
    error, i, rows, starts, poly_shapes, vert_shapes = _select(ids, polygons, vertices, reindex,
                                                               contiguous)
    assert (error, i) == (-1, -1)
    out_p = BatchStorage.allocate(np.int32, [tuple(s) for s in poly_shapes])
    out_v = BatchStorage.allocate(vertices[0].dtype, [tuple(s) for s in vert_shapes])
    src = BatchStorage.from_arrays(vertices) if contiguous else \
        BatchStorage.from_samples(vertices)
    select_masks.write(src, rows, starts, out_p, out_v)
    for s, (p, v) in enumerate(zip(out_p.samples(), out_v.samples(), strict=True)):
        ref_rows, ref_starts, total = _reference(ids[s], polygons[s], reindex)
        np.testing.assert_array_equal(p, ref_rows)
        assert v.shape == (total, vertices[s].shape[1])
        parts = [vertices[s][lo:lo + r[2] - r[1]] for lo, r in zip(ref_starts, ref_rows,
                                                                      strict=True)]
        np.testing.assert_array_equal(v, np.concatenate(parts) if parts else v)


@pytest.mark.parametrize("spread", [1, 10**6])
def test_first_error_of_each_kind_in_batch_order(spread):
    """Repeats come before missing ids, missing ids before bad ranges, out-of-bounds ranges
    before reversed ones, whatever their samples; the index is the batch's first such id."""
    scale = 1 if spread == 1 else 10**6
    polygons = [np.array([[0, 0, 2], [1 * scale, 5, 3], [2 * scale, 0, 20]], np.int32)] * 3
    vertices = [np.zeros((10, 2), np.float32)] * 3
    cases = [
        ([[0, 1 * scale], [2 * scale, 7], [0, 0]], select_masks.DUPLICATE, 5),
        ([[0, 1 * scale], [2 * scale, 7], [0, 9]], select_masks.MISSING, 3),
        ([[1 * scale], [0], [2 * scale]], select_masks.OUT_OF_BOUNDS, 2),
        ([[1 * scale], [0], [0]], select_masks.REVERSED, 0),
    ]
    for ids, kind, index in cases:
        ids = [np.array(i, np.int32) for i in ids]
        assert _select(ids, polygons, vertices, False)[:2] == (kind, index)


def test_polygons_without_three_columns_name_the_sample():
    ids = [np.array([0], np.int32)] * 3
    polygons = [np.array([[0, 0, 1]], np.int32)] * 2 + [np.array([[0, 0]], np.int32)]
    vertices = [np.zeros((4, 2), np.float32)] * 3
    assert _select(ids, polygons, vertices, False)[:2] == (select_masks.COLUMNS, 2)


def test_checks_before_running():
    ids = [np.array([0], np.int32)]
    polygons = [np.array([[0, 0, 1]], np.int32)]
    vertices = [np.zeros((4, 2), np.float32)]
    with pytest.raises(ValueError, match="int32"):
        _select([i.astype(np.int64) for i in ids], polygons, vertices, False)
    with pytest.raises(ValueError, match="same number of samples"):
        _select(ids, polygons * 2, vertices, False)
    error, _, rows, starts, poly_shapes, vert_shapes = _select(ids, polygons, vertices, False)
    out_p = BatchStorage.allocate(np.int32, [tuple(s) for s in poly_shapes])
    src = BatchStorage.from_arrays(vertices)
    with pytest.raises(ValueError, match="do not match"):     # wrong element type
        select_masks.write(src, rows, starts, out_p,
                           BatchStorage.allocate(np.float64, [tuple(vert_shapes[0])]))
    with pytest.raises(ValueError, match="does not match"):   # a range past the vertices
        select_masks.write(src, rows, starts + 4, out_p,
                           BatchStorage.allocate(np.float32, [tuple(vert_shapes[0])]))
    with pytest.raises(ValueError, match="does not match"):   # too few output vertices
        select_masks.write(src, rows, starts, out_p, BatchStorage.allocate(np.float32, [(0, 2)]))
    with pytest.raises(ValueError, match="output polygons"):   # fewer rows than polygons
        select_masks.write(src, rows[:0], starts[:0], out_p,
                           BatchStorage.allocate(np.float32, [tuple(vert_shapes[0])]))
