"""`_conditional.split` and `_conditional.merge` batches (`_ext/kernels/conditional.pyx`): the
gathered copies of small contiguous batches, the views of large or per-sample ones, the
pass-through of a side taking every sample and the empty side, checked sample by sample (values,
shapes, ids, source info) against the selection done in NumPy, then through pipelines."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage

from dali import fn, pipeline_def
from dali._ext.kernels import conditional

KINDS = ["small", "large", "ragged", "per_sample", "scalars"]


def batch(kind, n, rng):
    if kind == "small":
        arrays = [rng.integers(0, 256, (8, 8, 3), dtype=np.uint8) for _ in range(n)]
    elif kind == "large":      # more than the copy limit: views
        arrays = [rng.random((160, 160, 3), dtype=np.float32) for _ in range(n)]
    elif kind == "ragged":
        arrays = [rng.integers(-9, 9, (rng.integers(0, 6), 3), dtype=np.int16)
                  for _ in range(n)]
    elif kind == "scalars":
        arrays = [np.float32(rng.random()) * np.ones((), np.float32) for _ in range(n)]
    else:
        arrays = [rng.random((4, rng.integers(1, 5))) for _ in range(n)]
    if kind == "per_sample":
        return BatchStorage.from_samples(arrays), arrays
    return BatchStorage.from_arrays(arrays), arrays


def masks(n, rng):
    yield np.ones(n, bool)
    yield np.zeros(n, bool)
    for _ in range(4):
        yield rng.random(n) < rng.random()


def same(storage, expected):
    assert storage.num_samples == len(expected)
    got = storage.samples()
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)
    assert storage.shapes.shape == (len(expected), expected[0].ndim if expected else
                                    storage.ndim)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [1, 5, 64])
def test_split_then_merge_gives_the_selection_and_the_batch_back(kind, n):
    rng = np.random.default_rng(n)
    st, arrays = batch(kind, n, rng)
    ids = np.arange(100, 100 + n)
    info = [f"file{i}" for i in range(n)]
    for mask in masks(n, rng):
        (t, tids, tinfo), (f, fids, finfo) = conditional.split(st, mask, ids, info)
        for side, sids, sinfo, m in ((t, tids, tinfo, mask), (f, fids, finfo, ~mask)):
            idx = np.flatnonzero(m)
            same(side, [arrays[i] for i in idx])
            assert side.dtype == st.dtype and side.ndim == st.ndim
            np.testing.assert_array_equal(sids, ids[idx])
            assert list(sinfo) == [info[i] for i in idx]
            if len(idx) == n:
                assert side is st
            if kind == "small" and 0 < len(idx) < n:
                assert side.is_contiguous       # gathered into one block
            if kind == "large" and 0 < len(idx) < n:
                assert not side.is_contiguous   # views, no copy
                assert np.shares_memory(side.samples()[0], st.samples()[idx[0]])
        out, oids, oinfo = conditional.merge(t, f, mask, tids, fids, tinfo, finfo)
        same(out, arrays)
        np.testing.assert_array_equal(oids, ids)
        assert list(oinfo) == info
        assert out.dtype == st.dtype


def test_split_without_source_info_and_merge_of_one_side_without():
    rng = np.random.default_rng(0)
    st, arrays = batch("small", 6, rng)
    mask = np.array([1, 0, 0, 1, 1, 0], bool)
    (t, tids, tinfo), (f, fids, finfo) = conditional.split(st, mask, np.arange(6), None)
    assert tinfo is None and finfo is None
    out, _, info = conditional.merge(t, f, mask, tids, fids, ["a", "b", "c"], None)
    assert info == ["a", "", "", "b", "c", ""]
    same(out, arrays)


def test_merge_of_two_empty_sides_has_the_false_sides_type():
    t = BatchStorage.allocate(np.uint8, [], ndim=3)
    f = BatchStorage.allocate(np.float32, [], ndim=3)
    out, ids, _ = conditional.merge(t, f, np.zeros(0, bool), [], [], None, None)
    assert out.num_samples == 0 and out.dtype == np.float32 and len(ids) == 0


def test_split_refuses_a_mask_of_another_length():
    st, _ = batch("small", 4, np.random.default_rng(1))
    with pytest.raises(ValueError, match=r"the mask has shape \(3,\), not \(4,\)"):
        conditional.split(st, np.ones(3, bool), np.arange(4), None)


@pytest.mark.parametrize("size", [(8, 8, 3), (200, 180, 3)])
@pytest.mark.parametrize("predicate_dtype", [np.bool_, np.int32, np.float32])
def test_if_else_pipeline(size, predicate_dtype):
    n = 12
    rng = np.random.default_rng(size[0])
    data = [[rng.integers(0, 200, size, dtype=np.uint8) for _ in range(n)] for _ in range(2)]
    conds = [[np.array(v, predicate_dtype) for v in rng.integers(0, 2, n)] for _ in range(2)]
    conds[1] = [np.array(1, predicate_dtype)] * n         # an empty else branch

    @pipeline_def(batch_size=n, num_threads=2, device_id=None, enable_conditionals=True,
                  exec_async=False, exec_pipelined=False)
    def pipe():
        x = fn.external_source(source=lambda i: data[i % 2], layout="HWC")
        c = fn.external_source(source=lambda i: conds[i % 2])
        if c:
            x = x + 7
        else:
            x = x[::-1] // 2
        return x

    p = pipe()
    p.build()
    for it in range(2):
        (out,) = p.run()
        for i, o in enumerate(out):
            x = data[it][i].astype(np.int32)
            want = x + 7 if conds[it][i] else x[::-1] // 2
            np.testing.assert_array_equal(np.asarray(o), want)
