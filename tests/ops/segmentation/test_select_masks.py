"""fn.segmentation.select_masks: the polygons and vertices of the selected masks."""

import numpy as np
import pytest
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

POLYGONS = np.array([[0, 0, 3], [1, 3, 7], [2, 7, 10]], np.int32)
VERTICES = np.arange(20, dtype=np.float32).reshape(10, 2)


def run(ids, polygons, vertices, real=False, **kwargs):
    return run_op(lambda fn, a, b, c: tuple(fn.segmentation.select_masks(a, b, c, **kwargs)),
                  [[np.asarray(i, np.int32) for i in ids], polygons, vertices], real=real)


def reference(ids, polygons, vertices, reindex=False):
    last = {int(p[0]): p for p in polygons}
    out, parts, start = [], [], 0
    for k, m in enumerate(ids):
        _, lo, hi = last[m]
        out.append([k if reindex else m, start, start + hi - lo])
        parts.append(vertices[lo:hi])
        start += hi - lo
    return (np.array(out, np.int32).reshape(-1, 3),
            np.concatenate(parts) if parts else vertices[:0])


def test_docstring_examples():
    (p,), (v,) = run([[1]], [POLYGONS], [VERTICES])
    assert p.tolist() == [[1, 0, 4]]
    np.testing.assert_array_equal(v, VERTICES[3:7])
    (p,), (v,) = run([[2, 0]], [POLYGONS], [VERTICES], reindex_masks=True)
    assert p.tolist() == [[0, 0, 3], [1, 3, 6]]
    np.testing.assert_array_equal(v, np.concatenate([VERTICES[7:10], VERTICES[0:3]]))


@pytest.mark.parametrize("seed", range(6))
def test_random_selections(seed):
    """Mask ids 0..19 (looked up in tables), then spread over 0..1.9e9 (sorted and searched)."""
    rng = np.random.default_rng(seed)
    ids, polys, verts = [], [], []
    for _ in range(4):
        n = int(rng.integers(1, 8))
        sizes = rng.integers(3, 6, n)
        ends = np.cumsum(sizes)
        mask_of = rng.permutation(20)[:n] * [1, 10**8][seed // 3]
        polys.append(np.stack([mask_of, ends - sizes, ends], 1).astype(np.int32))
        verts.append(rng.normal(size=(int(ends[-1]), int(rng.integers(2, 4)))).astype(
            [np.float32, np.float64, np.int16][seed % 3]))
        ids.append(list(rng.permutation(mask_of)[:rng.integers(0, n + 1)]))
    reindex = bool(seed % 2)
    p_out, v_out = run(ids, polys, verts, reindex_masks=reindex)
    for k, (p, v) in enumerate(zip(p_out, v_out, strict=True)):
        rp, rv = reference(ids[k], polys[k], verts[k], reindex)
        assert p.dtype == np.int32 and v.dtype == rv.dtype
        np.testing.assert_array_equal(p, rp)
        np.testing.assert_array_equal(v, rv)


def test_several_polygons_of_one_mask_keep_the_last():
    polygons = np.array([[1, 0, 3], [0, 5, 7], [1, 3, 5]], np.int32)
    (p,), (v,) = run([[1, 0]], [polygons], [VERTICES])
    assert p.tolist() == [[1, 0, 2], [0, 2, 4]]
    np.testing.assert_array_equal(v, np.concatenate([VERTICES[3:5], VERTICES[5:7]]))


@pytest.mark.parametrize("ids, polygons, message", [
    ([5], POLYGONS, "Selected mask_id 5 is not present in the input"),
    ([1, 1], POLYGONS, "mask_ids should not have duplicated values. Got 1 repeated"),
    ([1], np.array([[1, 3, 12]], np.int32), r"Vertex index range for mask id 1 \[3, 12\) is "
     r"out of bounds. Expected to be within the range of available vertices \[0, 10\)"),
    ([1], np.array([[1, 5, 3]], np.int32), r"Vertex start index can't be after end index. "
     r"Got \[5, 3\)"),
    ([1], np.array([[1, -2**31, 2**31 - 1]], np.int32), r"Vertex index range for mask id 1 "
     r"\[-2147483648, 2147483647\) is out of bounds"),
    ([1], POLYGONS[:, :2].copy(), "``polygons`` is expected to contain 2D tensors with 3 "
     "columns"),
    ([1], POLYGONS.astype(np.int64), "``polygons`` input is expected to be int32"),
])
def test_errors(ids, polygons, message):
    with pytest.raises(PipelineError, match=f"select_masks: {message}"):
        run([ids], [polygons], [VERTICES])


def test_first_error_kind_wins_over_earlier_samples():
    """As before the kernel: a repeated id anywhere in the batch is reported before an id
    without polygon in an earlier sample."""
    with pytest.raises(PipelineError, match=r"Got 2 repeated\.\n\(in sample 2 of the batch"):
        run([[5], [0], [2, 2]], [POLYGONS] * 3, [VERTICES] * 3)


@pytest.mark.oracle
def test_against_dali():
    pytest.importorskip("nvidia.dali")
    polygons = [POLYGONS, np.array([[4, 0, 2], [7, 2, 9], [4, 9, 10]], np.int32)]
    vertices = [VERTICES, np.arange(30, dtype=np.float32).reshape(10, 3)]
    ids = [[2, 0], [4, 7]]
    for reindex in (False, True):
        ours = run(ids, polygons, vertices, reindex_masks=reindex)
        real = run(ids, polygons, vertices, real=True, reindex_masks=reindex)
        for o, r in zip(ours, real, strict=True):
            for a, b in zip(o, r, strict=True):
                assert a.dtype == b.dtype
                np.testing.assert_array_equal(a, b)
