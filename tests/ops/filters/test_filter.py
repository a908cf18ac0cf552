"""fn.filter and fn.experimental.filter: a NumPy reference over border modes, anchors and
modes, per-frame filters and fill values, goldens, the oracle and errors."""

import json
import pathlib

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError

F32 = np.float32
GOLDEN = pathlib.Path(__file__).parents[2] / "goldens" / "filters.npz"
NP_PAD = {"reflect_101": "reflect", "reflect_1001": "symmetric", "wrap": "wrap",
          "clamp": "edge", "constant": "constant"}


def reference(img, filt, anchor=(-1, -1), border="reflect_101", mode="same", fill=0):
    """float32 correlation of an HWC image, taps summed row-major from 0."""
    fh, fw = filt.shape
    x = img.astype(F32)
    if mode == "valid":
        padded, oh, ow = x, x.shape[0] - fh + 1, x.shape[1] - fw + 1
    else:
        ay, ax = (a if a >= 0 else n // 2 for a, n in zip(anchor, filt.shape, strict=True))
        pads = ((ay, fh - 1 - ay), (ax, fw - 1 - ax), (0, 0))
        kw = {"constant_values": fill} if border == "constant" else {}
        padded = np.pad(x, pads, mode=NP_PAD[border], **kw).astype(F32)
        oh, ow = x.shape[:2]
    acc = np.zeros((oh, ow, x.shape[2]), F32)
    for i in range(fh):
        for j in range(fw):
            acc = (acc + filt[i, j] * padded[i:i + oh, j:j + ow]).astype(F32)
    return acc


def to_int(x, dtype):
    info = np.iinfo(dtype)
    return np.clip(np.rint(x), info.min, info.max).astype(dtype)


@pytest.mark.parametrize("border", list(NP_PAD))
@pytest.mark.parametrize("seed", range(3))
def test_against_numpy_reference(border, seed):
    rng = np.random.default_rng(seed)
    imgs = [rng.integers(0, 256, (rng.integers(4, 20), rng.integers(4, 20), 3), dtype=np.uint8)
            for _ in range(3)]
    filts = [rng.uniform(-1, 1, tuple(rng.integers(1, 6, 2))).astype(F32) for _ in range(3)]
    anchor = [-1, 0] if seed == 1 else [-1, -1]
    out, = run_op(lambda fn, x, f: fn.filter(x, f, anchor=anchor, border=border,
                                             dtype=types.FLOAT), [imgs, filts],
                  layouts=["HWC", None])
    out8, = run_op(lambda fn, x, f: fn.filter(x, f, anchor=anchor, border=border),
                   [imgs, filts], layouts=["HWC", None])
    for img, f, o, o8 in zip(imgs, filts, out, out8, strict=True):
        ref = reference(img, f, anchor, border)
        np.testing.assert_allclose(o, ref, rtol=1e-6, atol=1e-4)
        assert o8.dtype == np.uint8
        assert np.abs(o8.astype(int) - to_int(ref, np.uint8)).max() <= 1


def test_batches_after_the_first_with_new_filters_and_shapes():
    """The plan of a repeated batch shape and filter shape is remembered: new filter values,
    a new filter shape and new image shapes in later batches still give their results."""
    rng = np.random.default_rng(11)
    batches = []
    for img_shape, filt_shape in [((10, 12, 3), (3, 3)), ((10, 12, 3), (3, 3)),
                                  ((10, 12, 3), (5, 5)), ((8, 9, 3), (5, 5))]:
        imgs = [rng.integers(0, 256, img_shape, dtype=np.uint8) for _ in range(3)]
        filts = [rng.uniform(-1, 1, filt_shape).astype(F32) for _ in range(3)]
        batches.append([imgs, filts])
    outs = run_op(lambda fn, x, f: fn.filter(x, f, dtype=types.FLOAT), batches,
                  iterations=len(batches), layouts=["HWC", None])
    for (imgs, filts), (out,) in zip(batches, outs, strict=True):
        for img, f, o in zip(imgs, filts, out, strict=True):
            np.testing.assert_allclose(o, reference(img, f), rtol=1e-6, atol=1e-4)


def test_valid_mode_fill_value_and_channel_first():
    rng = np.random.default_rng(4)
    img = rng.random((9, 11, 2)).astype(F32)
    f = rng.random((3, 4)).astype(F32)
    out, = run_op(lambda fn, x, w: fn.filter(x, w, mode="valid"), [[img], [f]],
                  layouts=["HWC", None])
    assert out[0].shape == (7, 8, 2)
    np.testing.assert_allclose(out[0], reference(img, f, mode="valid"), rtol=1e-6)
    out, = run_op(lambda fn, x, w, v: fn.filter(x, w, v, border="constant"),
                  [[img], [f], [np.array(3.5, F32)]], layouts=["HWC", None, None])
    np.testing.assert_allclose(out[0], reference(img, f, border="constant", fill=3.5),
                               rtol=1e-6)
    chw = np.ascontiguousarray(img.transpose(2, 0, 1))
    out, = run_op(lambda fn, x, w: fn.filter(x, w), [[chw], [f]], layouts=["CHW", None])
    np.testing.assert_allclose(out[0].transpose(1, 2, 0), reference(img, f), rtol=1e-6)


def test_per_frame_filters_and_fill_values():
    rng = np.random.default_rng(5)
    seq = rng.integers(0, 256, (3, 8, 9, 1), dtype=np.uint8)
    filts = rng.uniform(-1, 1, (3, 3, 3)).astype(F32)
    fills = np.array([0, 100, 255], np.uint8)
    out, = run_op(lambda fn, x, w, v: fn.filter(x, fn.per_frame(w), fn.per_frame(v),
                                                 border="constant", dtype=types.FLOAT),
                  [[seq], [filts], [fills]], layouts=["FHWC", None, None])
    for k in range(3):
        np.testing.assert_allclose(out[0][k], reference(seq[k], filts[k], border="constant",
                                                        fill=float(fills[k])), rtol=1e-6,
                                   atol=1e-4)


def test_experimental_alias_warns_and_matches():
    img = np.arange(48, dtype=F32).reshape(4, 4, 3)
    f = np.ones((3, 3), F32) / 9
    with pytest.warns(DeprecationWarning, match="experimental.filter"):
        old, = run_op(lambda fn, x, w: fn.experimental.filter(x, w), [[img], [f]],
                      layouts=["HWC", None])
    new, = run_op(lambda fn, x, w: fn.filter(x, w), [[img], [f]], layouts=["HWC", None])
    np.testing.assert_array_equal(old[0], new[0])


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16])
def test_integer_outputs_round_halves_to_even_and_saturate(dtype):
    """Integer outputs are the float sums rounded half to even (OpenCV's cvRound) and clamped,
    NaN giving 0: exactly, over halves, both saturations and the vector blocks' tails."""
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    img = rng.integers(max(info.min, -3000), min(info.max, 3000) + 1, (5, 37, 3)).astype(dtype)
    img[0, :4, 0] = [0, 1, 2, 3]
    for f in (np.array([[0.5]], F32), np.array([[0.25, 0.25]], F32),
              np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], F32),
              np.array([[40.5, -0.5]], F32), np.array([[np.inf]], F32)):
        ints, = run_op(lambda fn, x, w: fn.filter(x, w), [[img], [f]], layouts=["HWC", None])
        floats, = run_op(lambda fn, x, w: fn.filter(x, w, dtype=types.FLOAT), [[img], [f]],
                         layouts=["HWC", None])
        want = np.clip(np.rint(np.nan_to_num(floats[0], nan=0, posinf=info.max,
                                             neginf=info.min)), info.min, info.max)
        assert ints[0].dtype == dtype
        np.testing.assert_array_equal(ints[0], want.astype(dtype))


@pytest.mark.parametrize("k", [10, 11, 12, 13, 14])
def test_golden(k):
    """DALI's CPU filter is OpenCV's filter2D: its float sums use fused multiply-adds, so
    floats agree to rounding and integers may differ by 1 at exact halves."""
    data = np.load(GOLDEN)
    name, op, kw, layout = json.loads(str(data["cases"]))[k]
    assert op == "filter"
    f = np.array(kw.pop("filter"), F32)
    kw = {a: getattr(types, v) if v == "FLOAT" else v for a, v in kw.items()}
    out, = run_op(lambda fn, x, w: fn.filter(x, w, **kw), [[data[name]], [f]],
                  layouts=[layout, None])
    want = data[f"out_{k}"]
    assert out[0].dtype == want.dtype and out[0].shape == want.shape
    np.testing.assert_allclose(out[0].astype(float), want, rtol=1e-5, atol=1)


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16, np.float32])
def test_oracle(dtype):
    rng = np.random.default_rng(12)
    imgs = [(rng.random((rng.integers(6, 25), rng.integers(6, 25), 2)) * 200).astype(dtype)
            for _ in range(3)]
    filts = [rng.uniform(-1, 1, (3, 5)).astype(F32) for _ in range(3)]
    for kw in ({}, {"border": "wrap", "anchor": [2, 0]}, {"border": "clamp"},
               {"mode": "valid"}, {"border": "constant", "dtype": types.FLOAT}):
        def build(fn, x, f, kw=kw):
            return fn.filter(x, f, **kw)
        ours, = run_op(build, [imgs, filts], layouts=["HWC", None])
        real, = run_op(build, [imgs, filts], layouts=["HWC", None], real=True)
        for a, b in zip(ours, real, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_allclose(a.astype(float), b, rtol=1e-5, atol=1)


@pytest.mark.parametrize("build,inputs,match", [
    (lambda fn, x, f: fn.filter(x, f), [np.zeros((4, 4, 3), np.int32), np.ones((3, 3), F32)],
     "Filter CPU does not support input type int32"),
    (lambda fn, x, f: fn.filter(x, f), [np.zeros((4, 4, 3), np.uint8), np.ones((3, 3))],
     "Unsupported filter type: float64"),
    (lambda fn, x, f: fn.filter(x, f), [np.zeros((4, 4, 3), np.uint8), np.ones((3, 3, 3), F32)],
     "Got 2 spatial dimensions but the filter is 3 dimensional"),
    (lambda fn, x, f: fn.filter(x, f, anchor=[3, 0]),
     [np.zeros((4, 4, 3), np.uint8), np.ones((3, 3), F32)],
     r"Anchor must lie within the filter. Got anchor \{3, 0\} with a filter of shape 3 x 3"),
    (lambda fn, x, f: fn.filter(x, f, mode="valid"),
     [np.zeros((4, 4, 3), np.uint8), np.ones((5, 3), F32)],
     "Filter for sample of idx 0 is bigger than the sample"),
    (lambda fn, x, f: fn.filter(x, f, mode="full"),
     [np.zeros((4, 4, 3), np.uint8), np.ones((3, 3), F32)],
     "Unknown ``mode`` was provided: ``full``"),
    (lambda fn, x, f: fn.filter(x, f, border="mirror"),
     [np.zeros((4, 4, 3), np.uint8), np.ones((3, 3), F32)],
     "Unknown ``border_type`` was provided: ``mirror``"),
    (lambda fn, x, f: fn.filter(x, f, np.float32(1), border="constant"),
     [np.zeros((4, 4, 3), np.uint8), np.ones((3, 3), F32)],
     r"The fill_value must have the input's type \(uint8\), got float32"),
    (lambda fn, x, f: fn.filter(x, f, dtype=types.INT16),
     [np.zeros((4, 4, 3), np.uint8), np.ones((3, 3), F32)],
     "Output data type must be same as input, FLOAT"),
])
def test_errors(build, inputs, match):
    with pytest.raises((PipelineError, ValueError), match=match) as e:
        run_op(build, [[v] for v in inputs], layouts=["HWC", None])
    assert "filter" in str(e.value)
