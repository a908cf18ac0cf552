"""fn.segmentation.random_object_bbox: the box of a random blob (or of the whole input)."""

import collections

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from pipeline_utils import run_op

from dali._executor.errors import PipelineError
from dali._ext.kernels import components


def blobs(m, background=0):
    """Reference: {(label, volume, start, end)} by flood fill, face connectivity."""
    seen = np.zeros(m.shape, bool)
    out = []
    for start in zip(*np.nonzero(m != background), strict=True):
        if seen[start]:
            continue
        label, todo, cells = m[start], [start], []
        seen[start] = True
        while todo:
            p = todo.pop()
            cells.append(p)
            for d in range(m.ndim):
                for s in (-1, 1):
                    q = list(p)
                    q[d] += s
                    q = tuple(q)
                    if 0 <= q[d] < m.shape[d] and not seen[q] and m[q] == label:
                        seen[q] = True
                        todo.append(q)
        c = np.array(cells)
        out.append((int(label), len(cells), tuple(c.min(0)), tuple(c.max(0) + 1)))
    return out


def run(masks, seed=1, num_threads=1, **kwargs):
    def build(fn, m):
        out = fn.segmentation.random_object_bbox(m, format="start_end", output_class=True,
                                                 **kwargs)
        return tuple(out)

    lo, hi, label = run_op(build, [masks], seed=seed, num_threads=num_threads)
    return [(int(c), tuple(a), tuple(b)) for a, b, c in zip(lo, hi, label, strict=True)]


def _outputs(out):
    return tuple(out) if isinstance(out, list) else out


def _mask(rng, shape, labels=4, p=0.3):
    return np.where(rng.random(shape) < p, rng.integers(1, labels, shape), 0).astype(np.uint8)


@pytest.mark.parametrize("seed", range(6))
def test_kernel_finds_the_blobs(seed):
    rng = np.random.default_rng(seed)
    shapes = [tuple(rng.integers(1, 12, ndim)) for ndim in (1, 2, 3, 4)] + [(7, 1, 9, 1)]
    for m in (_mask(rng, shape, p=0.5) for shape in shapes):
        ndim = m.ndim
        counts, rows = components.label_batch(None, BatchStorage.from_arrays([m]), [0])
        got = sorted((r[0], r[1], tuple(r[2:2 + ndim]), tuple(r[2 + ndim:]))
                     for r in rows.tolist())
        assert counts[0] == len(rows)
        assert got == sorted(blobs(m))


@pytest.mark.parametrize("seed", range(10))
def test_the_box_is_a_blob_of_the_class(seed):
    rng = np.random.default_rng(seed)
    masks = [_mask(rng, (int(rng.integers(1, 20)), int(rng.integers(1, 20)))) for _ in range(8)]
    for m, (label, lo, hi) in zip(masks, run(masks, seed=seed), strict=True):
        boxes = {(b[0], b[2], b[3]) for b in blobs(m)}
        if boxes:
            assert (label, lo, hi) in boxes
        else:
            assert (label, lo, hi) == (0, (0, 0), m.shape)


def test_classes_are_drawn_uniformly_then_blobs():
    m = np.zeros((10, 10), np.int32)
    m[0, 0] = m[0, 2] = m[0, 4] = 1          # three blobs of class 1
    m[5:8, 5:8] = 2                          # one of class 2
    got = collections.Counter(run([m] * 600, seed=3))
    by_class = collections.Counter(label for label, _, _ in got.elements())
    assert 250 < by_class[1] < 350 and 250 < by_class[2] < 350
    assert len([k for k in got if k[0] == 1]) == 3


def test_ignore_class_k_largest_threshold_and_weights():
    m = np.zeros((10, 12), np.int16)
    m[0, 0] = 1
    m[2:4, 2:5] = 1                          # 2 x 3
    m[6:10, 6:8] = 2                         # 4 x 2
    lo, hi = run_op(lambda fn, m: tuple(fn.segmentation.random_object_bbox(
        m, ignore_class=True, k_largest=2, format="start_end")), [[m] * 200], seed=5)
    assert {(tuple(a), tuple(b)) for a, b in zip(lo, hi, strict=True)} == {
        ((2, 2), (4, 5)), ((6, 6), (10, 8))}
    got = {b for b in run([m] * 100, threshold=[3, 2])}
    assert got == {(2, (6, 6), (10, 8))}
    got = {b for b in run([m] * 100, threshold=[1])}
    assert {b[0] for b in got} == {1, 2}
    got = {b for b in run([m] * 100, classes=[1, 2], class_weights=[0.0, 1.0])}
    assert got == {(2, (6, 6), (10, 8))}
    got = {b for b in run([m] * 100, classes=[2, 7], class_weights=[0.0, 1.0])}
    assert got == {(0, (0, 0), (10, 12))}    # class 7 has no blob: the background box


def test_background_and_foreground_prob():
    m = np.zeros((4, 6), np.int32)
    m[1, 1] = 3
    assert set(run([m] * 20, foreground_prob=0.0)) == {(0, (0, 0), (4, 6))}
    assert set(run([m] * 20, foreground_prob=0.0, classes=[3, 0])) == {(-1, (0, 0), (4, 6))}
    # background 3: the zeros are the object (one blob around the 3)
    assert set(run([m] * 20, background=3)) == {(0, (0, 0), (4, 6))}
    half = run([m] * 400, foreground_prob=0.5, seed=8)
    assert 150 < sum(b[0] == 3 for b in half) < 250


def test_formats_and_types():
    m = np.zeros((3, 4, 5), bool)
    m[1, 1:3, 2:5] = True
    (box,) = run_op(lambda fn, m: fn.segmentation.random_object_bbox(m, format="box"), [[m]])
    assert box[0].dtype == np.int32 and box[0].tolist() == [1, 1, 2, 2, 3, 5]
    anchor, shape = run_op(lambda fn, m: tuple(fn.segmentation.random_object_bbox(m)), [[m]])
    assert anchor[0].tolist() == [1, 1, 2] and shape[0].tolist() == [1, 2, 3]


def test_same_seed_same_boxes_whatever_the_threads():
    rng = np.random.default_rng(4)
    masks = [_mask(rng, (60, 70)) for _ in range(10)]
    assert run(masks, seed=11, num_threads=1) == run(masks, seed=11, num_threads=3)
    assert run(masks, seed=11) != run(masks, seed=12)


@pytest.mark.parametrize("kwargs, message", [
    ({"format": "foo"}, 'Invalid output format: "foo"'),
    ({"ignore_class": True, "classes": [1]}, "cannot be used when ``ignore_class`` is True"),
    ({"ignore_class": True, "output_class": True}, "cannot be used when ``ignore_class``"),
    ({"k_largest": 0}, "``k_largest`` must be at least 1; got 0"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(RuntimeError, match=f"random_object_bbox: .*{message}"):
        run_op(lambda fn, m: _outputs(fn.segmentation.random_object_bbox(m, **kwargs)),
               [[np.zeros((2, 2), np.uint8)]])


@pytest.mark.parametrize("dtype, kwargs, message", [
    (np.float32, {}, "Unsupported input type: float"),
    (np.int64, {}, "Unsupported input type: int64"),
    (np.uint8, {"threshold": [1, 2, 3]}, 'Argument "threshold" expected shape 2 but got 3'),
    (np.uint8, {"classes": [1], "class_weights": [1.0, 2.0]}, "their shapes must match"),
])
def test_bad_inputs(dtype, kwargs, message):
    m = np.ones((2, 2), dtype)
    with pytest.raises(PipelineError, match=f"random_object_bbox: .*{message}"):
        run_op(lambda fn, m: fn.segmentation.random_object_bbox(m, format="box", **kwargs),
               [[m]])


@pytest.mark.oracle
def test_same_boxes_as_dali():
    """Different random streams, same support: the boxes DALI returns are the ones we do."""
    pytest.importorskip("nvidia.dali")
    m = np.zeros((6, 8), np.int32)
    m[0:2, 0:2] = 1
    m[2, 2] = 1                              # a diagonal neighbour: a blob of its own
    m[4:6, 5:8] = 2

    def build(fn, m):
        return tuple(fn.segmentation.random_object_bbox(m, format="start_end",
                                                         output_class=True))

    def support(outs):
        return {(int(c), tuple(a), tuple(b)) for a, b, c in zip(*outs, strict=True)}

    ours = support(run_op(build, [[m] * 200]))
    real = support(run_op(build, [[m] * 200], real=True))
    assert ours == real == {(1, (0, 0), (2, 2)), (1, (2, 2), (3, 3)), (2, (4, 5), (6, 8))}
