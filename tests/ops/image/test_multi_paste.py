"""fn.multi_paste: regions by in_ids or from several inputs, absolute and relative anchors and
shapes (their rounding), overlaps, output size and type, errors; against NumPy, DALI's goldens
and real DALI."""

import numpy as np
import pytest
import slicing_goldens
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError


def reference(canvas, regions, dtype):
    """`regions`: (source image, in_y, in_x, out_y, out_x, h, w), pasted in order."""
    out = np.zeros(canvas, dtype)
    for src, iy, ix, oy, ox, h, w in regions:
        out[oy:oy + h, ox:ox + w] = src[iy:iy + h, ix:ix + w]
    return out


@pytest.mark.parametrize("k, kwargs, layout", slicing_goldens.cases("multi_paste"))
def test_goldens(k, kwargs, layout):
    out, expected = slicing_goldens.replay("multi_paste", k, kwargs, layout)
    for o, e in zip(out, expected, strict=True):
        assert o.dtype == e.dtype
        np.testing.assert_array_equal(o, e)


@pytest.mark.parametrize("seed", range(8))
def test_random_regions_against_numpy(seed):
    rng = np.random.default_rng(seed)
    n, canvas = 4, (int(rng.integers(5, 20)), int(rng.integers(5, 20)))
    xs = [rng.integers(0, 256, (int(rng.integers(2, 15)), int(rng.integers(2, 15)), 2),
                       dtype=np.uint8) for _ in range(n)]
    ids, ins, outs, shapes, expected = [], [], [], [], []
    for _ in range(n):
        count = int(rng.integers(0, 4))
        sample_ids = rng.integers(0, n, count)
        rows = []
        for j in sample_ids:
            h = int(rng.integers(0, min(xs[j].shape[0], canvas[0]) + 1))
            w = int(rng.integers(0, min(xs[j].shape[1], canvas[1]) + 1))
            iy = int(rng.integers(0, xs[j].shape[0] - h + 1))
            ix = int(rng.integers(0, xs[j].shape[1] - w + 1))
            oy = int(rng.integers(0, canvas[0] - h + 1))
            ox = int(rng.integers(0, canvas[1] - w + 1))
            rows.append((xs[j], iy, ix, oy, ox, h, w))
        ids.append(sample_ids.astype(np.int32))
        ins.append(np.array([r[1:3] for r in rows], np.int32).reshape(-1, 2))
        outs.append(np.array([r[3:5] for r in rows], np.int32).reshape(-1, 2))
        shapes.append(np.array([r[5:7] for r in rows], np.int32).reshape(-1, 2))
        expected.append(reference(canvas + (2,), rows, np.uint8))
    out = run_op(lambda fn, x, i, a, b, s: fn.multi_paste(
        x, in_ids=i, in_anchors=a, out_anchors=b, shapes=s, output_size=list(canvas)),
        [xs, ids, ins, outs, shapes], layouts=["HWC"] + [None] * 4)[0]
    for o, e in zip(out, expected, strict=True):
        np.testing.assert_array_equal(o, e)


def test_several_inputs_and_default_canvas():
    rng = np.random.default_rng(2)
    a = [rng.integers(0, 256, (4, 5, 3), dtype=np.uint8) for _ in range(2)]
    b = [rng.integers(0, 256, (4, 5, 3), dtype=np.uint8) for _ in range(2)]
    anchors = [np.array([[0, 0], [2, 3]], np.int32), np.array([[1, 1], [0, 0]], np.int32)]
    shapes = [np.array([[4, 5], [2, 2]], np.int32), np.array([[3, 4], [1, 5]], np.int32)]
    out = run_op(lambda fn, x, y, o, s: fn.multi_paste(x, y, out_anchors=o, shapes=s),
                 [a, b, anchors, shapes], layouts=["HWC", "HWC", None, None])[0]
    for i in range(2):
        (oy0, ox0), (oy1, ox1) = anchors[i]
        (h0, w0), (h1, w1) = shapes[i]
        want = reference((4, 5, 3), [(a[i], 0, 0, oy0, ox0, h0, w0),
                                     (b[i], 0, 0, oy1, ox1, h1, w1)], np.uint8)
        np.testing.assert_array_equal(out[i], want)


def test_relative_anchors_truncate_and_shapes_round_up():
    x = [np.arange(3 * 4 * 1, dtype=np.uint8).reshape(3, 4, 1)]
    rel = [np.array([[0.2, 0.2]], np.float32)]
    size = [np.array([[0.8, 0.8]], np.float32)]
    (out,) = run_op(lambda fn, a, i, o, s: fn.multi_paste(
        a, in_ids=[0], in_anchors_rel=i, out_anchors_rel=o, shapes_rel=s, output_size=[7, 9]),
        [x, rel, rel, size], layouts=["HWC", None, None, None])[0]
    # in anchor (0.6, 0.8) -> (0, 0); out (1.4, 1.8) -> (1, 1); shape (2.4, 3.2) -> (3, 4)
    np.testing.assert_array_equal(out, reference((7, 9, 1), [(x[0], 0, 0, 1, 1, 3, 4)],
                                                 np.uint8))


def test_dtype_converts_like_cast():
    x = [np.array([[[-80.0], [8.8]], [[127.2], [300.0]]], np.float32)]
    (out,) = run_op(lambda fn, a: fn.multi_paste(a, in_ids=[0], dtype=types.UINT8), [x],
                    layouts=["HWC"])[0]
    np.testing.assert_array_equal(out[..., 0], [[0, 9], [127, 255]])


@pytest.mark.parametrize("kwargs, xs, message", [
    ({"in_ids": [5]}, [np.ones((2, 2, 1), np.uint8)],
     r"The `in_idx` must be in range \[0, .., batch_size - 1\]. Got in_idx: 5. Input batch "
     "size is: 1"),
    ({"in_ids": [0]}, [np.ones((2, 2, 1), np.uint8), np.ones((3, 2, 1), np.uint8)],
     "If the `output_size` is not specified, all the input samples must have the same "
     "shape. Got samples of different shapes: 2 x 2 and 3 x 2"),
    ({"in_ids": [0], "output_size": [1, 1]}, [np.ones((2, 2, 1), np.uint8)],
     "The pasted region must be within output bounds. Got output anchor: 0 x 0, pasted "
     "region shape: 2 x 2, output shape: 1 x 1, for the region at index 0, pasted into "
     "output sample at index 0"),
    ({"in_ids": [0], "dtype": types.FLOAT16}, [np.ones((2, 2, 1), np.uint8)],
     "Not supported conversion from uint8 to float16"),
])
def test_errors(kwargs, xs, message):
    with pytest.raises(PipelineError, match=f"fn.multi_paste: {message}"):
        run_op(lambda fn, a: fn.multi_paste(a, **kwargs), [xs], layouts=["HWC"])


def test_region_outside_the_input():
    x = [np.ones((3, 4, 1), np.uint8)]
    with pytest.raises(PipelineError, match="The pasted region must be within input sample. "
                                            "Got input anchor: 2 x 2, pasted region shape: "
                                            "2 x 2, input shape: 3 x 4"):
        run_op(lambda fn, a, i, s: fn.multi_paste(a, in_ids=[0], in_anchors=i, shapes=s),
               [x, [np.array([[2, 2]], np.int32)], [np.array([[2, 2]], np.int32)]],
               layouts=["HWC", None, None])


def test_in_ids_take_one_input():
    x = [np.ones((3, 4, 1), np.uint8)]
    with pytest.raises(PipelineError, match="If the `in_ids` is specified, the operator "
                                            "accepts exactly one positional input batch. "
                                            "Got: 2 inputs"):
        run_op(lambda fn, a, b: fn.multi_paste(a, b, in_ids=[0]), [x, x],
               layouts=["HWC", "HWC"])


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_relative_regions_match_dali(seed):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(seed)
    xs = [rng.integers(0, 256, (int(rng.integers(3, 20)), int(rng.integers(3, 20)), 3),
                       dtype=np.uint8) for _ in range(3)]
    ids = [np.array([i, (i + 1) % 3], np.int32) for i in range(3)]
    in_rel = [rng.uniform(0, 0.5, (2, 2)).astype(np.float32) for _ in range(3)]
    out_rel = [rng.uniform(0, 0.5, (2, 2)).astype(np.float32) for _ in range(3)]
    shape_rel = [rng.uniform(0, 0.5, (2, 2)).astype(np.float32) for _ in range(3)]

    def build(fn, x, i, a, b, s):
        return fn.multi_paste(x, in_ids=i, in_anchors_rel=a, out_anchors_rel=b, shapes_rel=s,
                              output_size=[21, 21])

    inputs = [xs, ids, in_rel, out_rel, shape_rel]
    layouts = ["HWC"] + [None] * 4
    ours = run_op(build, inputs, layouts=layouts)[0]
    real = run_op(build, inputs, layouts=layouts, real=True)[0]
    for o, r in zip(ours, real, strict=True):
        np.testing.assert_array_equal(o, r)


def test_canvas_follows_the_input_shapes_from_batch_to_batch():
    batches = [[[np.full((h, h + 1, 1), 5, np.uint8), np.full((h, h + 1, 1), 6, np.uint8)]]
               for h in (3, 3, 6, 3)]
    outs = run_op(lambda fn, x: fn.multi_paste(x, in_ids=[1, 0]), batches,
                  iterations=len(batches), layouts=["HWC"])
    for (batch,), (out,) in zip(batches, outs, strict=True):
        for o in out:
            np.testing.assert_array_equal(o, batch[0])
