"""fn.paste: canvas sizes, paste positions, fill values, per-sample arguments and errors;
against NumPy, DALI's goldens and real DALI."""

import numpy as np
import pytest
import slicing_goldens
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

F32 = np.float32


def reference(x, ratio, px=0.5, py=0.5, fill=(0, 0, 0), min_canvas=0.0):
    h, w, c = x.shape
    oh = int(max(F32(h) * F32(ratio), F32(min_canvas)))
    ow = int(max(F32(w) * F32(ratio), F32(min_canvas)))
    y, x0 = int(F32(py) * F32(oh - h)), int(F32(px) * F32(ow - w))
    out = np.empty((oh, ow, c), np.uint8)
    out[...] = np.asarray(fill, np.int64).astype(np.uint8)
    out[y:y + h, x0:x0 + w] = x
    return out


@pytest.mark.parametrize("k, kwargs, layout", slicing_goldens.cases("paste"))
def test_goldens(k, kwargs, layout):
    out, expected = slicing_goldens.replay("paste", k, kwargs, layout)
    for o, e in zip(out, expected, strict=True):
        np.testing.assert_array_equal(o, e)


@pytest.mark.parametrize("seed", range(10))
def test_random_against_numpy(seed):
    rng = np.random.default_rng(seed)
    xs = [rng.integers(0, 256, (int(rng.integers(1, 20)), int(rng.integers(1, 20)), 3),
                       dtype=np.uint8) for _ in range(3)]
    kwargs = {"ratio": float(rng.uniform(1, 3)), "paste_x": float(rng.uniform()),
              "paste_y": float(rng.uniform()), "min_canvas_size": float(rng.uniform(0, 30)),
              "fill_value": rng.integers(0, 256, 3).tolist()}
    out = run_op(lambda fn, x: fn.paste(x, **kwargs), [xs], layouts=["HWC"])[0]
    for o, x in zip(out, xs, strict=True):
        np.testing.assert_array_equal(
            o, reference(x, kwargs["ratio"], kwargs["paste_x"], kwargs["paste_y"],
                         kwargs["fill_value"], kwargs["min_canvas_size"]))


def test_per_sample_arguments():
    rng = np.random.default_rng(1)
    xs = [rng.integers(0, 256, (6, 9, 1), dtype=np.uint8) for _ in range(2)]
    ratios = [F32(1.5), F32(2.2)]
    pxs = [F32(0.0), F32(0.9)]
    out = run_op(lambda fn, x, r, p: fn.paste(x, ratio=r, paste_x=p, fill_value=[7],
                                              n_channels=1),
                 [xs, ratios, pxs], layouts=["HWC", None, None])[0]
    for o, x, r, p in zip(out, xs, ratios, pxs, strict=True):
        np.testing.assert_array_equal(o, reference(x, r, px=p, fill=(7,)))


@pytest.mark.parametrize("kwargs, x, message", [
    ({"ratio": 0.5}, np.ones((2, 2, 3), np.uint8), "ratio of less than 1 is not supported"),
    ({"ratio": 2.0, "paste_x": 1.5}, np.ones((2, 2, 3), np.uint8),
     r"paste_x must be in range \[0, 1\]"),
    ({"ratio": 2.0, "paste_y": -0.1}, np.ones((2, 2, 3), np.uint8),
     r"paste_y must be in range \[0, 1\]"),
    ({"ratio": 2.0}, np.ones((2, 2, 4), np.uint8), "the image has 4 channels, n_channels is 3"),
    ({"ratio": 2.0}, np.ones((2, 2, 3), np.float32), "Not supported input type: float32"),
    ({"ratio": 2.0}, np.ones((2, 2), np.uint8), "The number of dimensions 2 does not match"),
])
def test_errors(kwargs, x, message):
    with pytest.raises(PipelineError, match=f"fn.paste: {message}"):
        run_op(lambda fn, a: fn.paste(a, fill_value=[0], **kwargs), [[x]])


def test_fill_value_length():
    with pytest.raises(RuntimeError, match='"fill_value" expects either a single value or a '
                                           "list of 3 elements. 2 given"):
        run_op(lambda fn, a: fn.paste(a, ratio=2.0, fill_value=[1, 2]),
               [[np.ones((2, 2, 3), np.uint8)]])


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_matches_dali(seed):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(seed)
    xs = [rng.integers(0, 256, (int(rng.integers(1, 30)), int(rng.integers(1, 30)), 3),
                       dtype=np.uint8) for _ in range(4)]
    kwargs = {"ratio": float(rng.uniform(1, 4)), "paste_x": float(rng.uniform()),
              "paste_y": float(rng.uniform()), "min_canvas_size": float(rng.uniform(0, 40)),
              "fill_value": rng.integers(0, 256, 3).tolist()}

    def build(fn, x):
        return fn.paste(x, **kwargs)

    ours = run_op(build, [xs], layouts=["HWC"])[0]
    real = run_op(build, [xs], layouts=["HWC"], real=True)[0]
    for o, r in zip(ours, real, strict=True):
        np.testing.assert_array_equal(o, r)


def test_canvas_follows_the_input_shapes_from_batch_to_batch():
    batches = [[[np.full((h, h + 2, 3), 5, np.uint8)]] for h in (3, 3, 8, 3)]
    outs = run_op(lambda fn, x: fn.paste(x, ratio=1.5, fill_value=[1]), batches,
                  iterations=len(batches), layouts=["HWC"])
    for (batch,), (out,) in zip(batches, outs, strict=True):
        np.testing.assert_array_equal(out[0], reference(batch[0], 1.5, fill=(1, 1, 1)))
