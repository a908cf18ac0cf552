"""fn.equalize: per-channel histogram equalisation of uint8 images (OpenCV's equalizeHist)."""

import json
import pathlib

import cv2
import numpy as np
import pytest
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

GOLDENS = pathlib.Path(__file__).resolve().parents[2] / "goldens" / "intensity.npz"


def equalize_channel(x):
    """OpenCV's rule, in NumPy: lut[v] = round((cdf(v) - h[v0]) * 255 / (n - h[v0]))."""
    hist = np.bincount(x.ravel(), minlength=256)
    v0 = int(np.flatnonzero(hist)[0])
    if hist[v0] == x.size:
        return x.copy()
    scale = np.float32(255) / np.float32(x.size - hist[v0])
    lut = np.rint((np.cumsum(hist) - hist[v0]).astype(np.float32) * scale)
    lut[:v0 + 1] = 0
    return np.clip(lut, 0, 255).astype(np.uint8)[x]


def reference(x, layout):
    if layout in ("HW", "CHW", "FHW", "FCHW"):          # planes of one channel
        planes = x.reshape(-1, *x.shape[-2:])
        return np.stack([equalize_channel(p) for p in planes]).reshape(x.shape)
    images = x.reshape(-1, *x.shape[-3:])                 # HWC / FHWC: channels one by one
    out = np.stack([np.stack([equalize_channel(img[..., c]) for c in range(img.shape[-1])], -1)
                    for img in images])
    return out.reshape(x.shape)


SHAPES = {"HW": (2,), "HWC": (3,), "CHW": (3,), "FHW": (3,), "FHWC": (4,), "FCHW": (4,)}


@pytest.mark.parametrize("layout", list(SHAPES))
@pytest.mark.parametrize("seed", range(3))
def test_against_numpy(layout, seed):
    rng = np.random.default_rng(seed)
    xs = []
    for _ in range(3):
        dims = {"F": rng.integers(1, 4), "H": rng.integers(1, 30), "W": rng.integers(1, 30),
                "C": rng.integers(1, 6)}
        hi = int(rng.integers(1, 256))
        xs.append(rng.integers(0, hi, [dims[a] for a in layout]).astype(np.uint8)
                  + np.uint8(rng.integers(0, 256 - hi)))
    (out,) = run_op(lambda fn, x: fn.equalize(x), [xs], layouts=[layout], num_threads=2)
    for o, x in zip(out, xs, strict=True):
        assert o.dtype == np.uint8 and o.shape == x.shape
        np.testing.assert_array_equal(o, reference(x, layout))


def test_matches_opencv_on_a_large_image():
    rng = np.random.default_rng(4)
    x = (rng.normal(100, 20, (300, 500, 3)).clip(0, 255)).astype(np.uint8)
    (out,) = run_op(lambda fn, x: fn.equalize(x), [[x]], layouts=["HWC"])
    ref = np.stack([cv2.equalizeHist(np.ascontiguousarray(x[..., c])) for c in range(3)], -1)
    np.testing.assert_array_equal(out[0], ref)


def test_flat_and_two_valued_channels():
    flat = np.full((5, 6, 3), 77, np.uint8)
    two = np.zeros((5, 6, 3), np.uint8)
    two[0, 0] = 200
    (out,) = run_op(lambda fn, x: fn.equalize(x), [[flat, two]], layouts=["HWC"])
    np.testing.assert_array_equal(out[0], flat)
    np.testing.assert_array_equal(out[1], np.where(two > 0, 255, 0).astype(np.uint8))


def test_small_samples_sharing_a_work_item_with_large_ones():
    """Runs of small samples share one scratch histogram (each plane clears the counts it
    reads); large samples, over the kernel's 32768-element runs, have their own."""
    rng = np.random.default_rng(5)
    shapes = [(4, 5, 3), (150, 120, 3), (3, 3, 1), (2, 7, 3), (200, 170, 3), (6, 6, 4)]
    xs = [rng.integers(0, 256, s).astype(np.uint8) for s in shapes]
    xs[3][:] = 9
    (out,) = run_op(lambda fn, x: fn.equalize(x), [xs], layouts=["HWC"], num_threads=2)
    for o, x in zip(out, xs, strict=True):
        np.testing.assert_array_equal(o, reference(x, "HWC"))


def test_batches_of_new_shapes_after_a_repeated_one():
    rng = np.random.default_rng(6)
    batches = [[[rng.integers(0, 256, s).astype(np.uint8) for _ in range(2)]]
               for s in [(5, 7, 3), (5, 7, 3), (9, 4, 3), (9, 4, 1)]]
    outs = run_op(lambda fn, x: fn.equalize(x), batches, iterations=len(batches),
                  layouts=["HWC"])
    for (xs,), (out,) in zip(batches, outs, strict=True):
        for o, x in zip(out, xs, strict=True):
            np.testing.assert_array_equal(o, reference(x, "HWC"))


def test_layout_of_an_input_without_one():
    """3-D is HWC and 4-D FHWC (the first layout of that rank), as in DALI."""
    rng = np.random.default_rng(8)
    x = rng.integers(0, 100, (2, 6, 5, 3), dtype=np.uint8)
    (out,) = run_op(lambda fn, x: fn.equalize(x), [[x]])
    np.testing.assert_array_equal(out[0], reference(x, "FHWC"))


def _goldens(op):
    data = np.load(GOLDENS)
    names = sorted({k[:-len("_input")] for k in data.files if k.endswith("_input")})
    return [(n, data[f"{n}_input"], str(data[f"{n}_layout"]),
             json.loads(str(data[f"{n}_args"])), data[f"{n}_output"])
            for n in names if n.startswith("eq_" if op == "equalize" else "lut_")]


@pytest.mark.parametrize("name, x, layout, kwargs, expected", _goldens("equalize"),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_goldens(name, x, layout, kwargs, expected):
    (out,) = run_op(lambda fn, x: fn.equalize(x, **kwargs), [[x]], layouts=[layout])
    np.testing.assert_array_equal(out[0], expected)


@pytest.mark.oracle
def test_against_dali():
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(21)
    xs = [rng.integers(0, 90, (17, 23, 3), dtype=np.uint8),
          rng.integers(30, 256, (8, 5, 4), dtype=np.uint8)]
    ours = run_op(lambda fn, x: fn.equalize(x), [xs], layouts=["HWC"])
    real = run_op(lambda fn, x: fn.equalize(x), [xs], layouts=["HWC"], real=True)
    for o, r in zip(ours[0], real[0], strict=True):
        np.testing.assert_array_equal(o, r)


@pytest.mark.parametrize("dtype, name", [(np.float32, "float"), (np.int16, "int16")])
def test_non_uint8_input(dtype, name):
    with pytest.raises(PipelineError,
                       match=f"equalize: Unsupported input type for equalize operator: {name}"):
        run_op(lambda fn, x: fn.equalize(x), [[np.zeros((4, 4, 3), dtype)]], layouts=["HWC"])


def test_bad_layout():
    with pytest.raises(PipelineError, match='equalize: The layout "WHC" does not match'):
        run_op(lambda fn, x: fn.equalize(x), [[np.zeros((4, 4, 3), np.uint8)]],
               layouts=["WHC"])


def test_deprecated_experimental_name():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 100, (6, 7, 3), dtype=np.uint8)
    with pytest.warns(DeprecationWarning, match="fn.experimental.equalize` is now deprecated"):
        (out,) = run_op(lambda fn, x: fn.experimental.equalize(x), [[x]], layouts=["HWC"])
    np.testing.assert_array_equal(out[0], reference(x, "HWC"))
