"""fn.erase: regions along named or indexed axes, absolute, normalized and centred coordinates
(floored), several regions, per-channel and per-sample fill values and errors; against NumPy,
DALI's goldens and real DALI."""

import numpy as np
import pytest
import slicing_goldens
from pipeline_utils import run_op

from dali._executor.errors import PipelineError


def reference(x, axes, anchor, shape, fill=(0.0,), channel=-1, normalized=(False, False),
              centered=False):
    out = x.copy()
    naxes = len(axes)
    f32 = np.float32
    anchor = np.asarray(anchor, f32).reshape(-1, naxes)
    shape = np.asarray(shape, f32).reshape(-1, naxes)
    extent = np.array([x.shape[a] for a in axes], f32)
    fill = np.asarray(fill, f32).astype(np.float64)
    value = np.trunc(fill).astype(np.int64).astype(x.dtype) if x.dtype.kind in "iu" \
        else fill.astype(x.dtype)
    if value.size > 1:
        value = value.reshape([-1 if d == channel else 1 for d in range(x.ndim)])
    for a, s in zip(anchor, shape, strict=True):
        a = a * extent if normalized[0] else a
        s = s * extent if normalized[1] else s
        if centered:
            a = a - s * f32(0.5)
        index = [slice(None)] * x.ndim
        for d, lo, hi in zip(axes, np.floor(a), np.floor(a + s), strict=True):
            index[d] = slice(int(min(max(lo, 0), x.shape[d])), int(min(max(hi, 0), x.shape[d])))
        region = out[tuple(index)]
        region[...] = np.broadcast_to(value, out.shape)[tuple(index)]
    return out


@pytest.mark.parametrize("k, kwargs, layout", slicing_goldens.cases("erase"))
def test_goldens(k, kwargs, layout):
    out, expected = slicing_goldens.replay("erase", k, kwargs, layout)
    for o, e in zip(out, expected, strict=True):
        assert o.dtype == e.dtype
        np.testing.assert_array_equal(o, e)


@pytest.mark.parametrize("seed", range(12))
def test_random_regions_against_numpy(seed):
    rng = np.random.default_rng(seed)
    dtype = [np.uint8, np.int16, np.float32][seed % 3]
    xs = [(rng.random((int(rng.integers(1, 12)), int(rng.integers(1, 12)), 3)) * 100)
          .astype(dtype) for _ in range(3)]
    names = ["HW", "WH", "W", "H", "HWC"][seed % 5]
    axes = ["HWC".index(c) for c in names]
    regions = int(rng.integers(1, 4))
    normalized = bool(seed % 2)
    scale = 1.0 if normalized else 12.0
    anchor = (rng.uniform(-0.2, 1.0, regions * len(axes)) * scale).round(3).tolist()
    shape = (rng.uniform(0, 0.8, regions * len(axes)) * scale).round(3).tolist()
    fill = rng.integers(0, 200, 3 if seed % 3 == 0 else 1).astype(float).tolist()
    centered = seed % 4 == 1
    out = run_op(lambda fn, x: fn.erase(x, anchor=anchor, shape=shape, axis_names=names,
                                        fill_value=fill, normalized=normalized,
                                        centered_anchor=centered),
                 [xs], layouts=["HWC"])[0]
    for o, x in zip(out, xs, strict=True):
        np.testing.assert_array_equal(
            o, reference(x, axes, anchor, shape, fill, 2, (normalized,) * 2, centered))


def test_per_sample_arguments_and_axes():
    rng = np.random.default_rng(3)
    xs = [rng.integers(0, 256, (6, 7, 2), dtype=np.uint8) for _ in range(2)]
    anchors = [np.array([1, 1, 3, 3], np.float32), np.array([0, 5], np.float32)]
    shapes = [np.array([1, 2, 2, 2], np.float32), np.array([4, 1], np.float32)]
    fills = [np.array([7, 8], np.float32), np.array([9], np.float32)]
    out = run_op(lambda fn, x, a, s, f: fn.erase(x, anchor=a, shape=s, fill_value=f,
                                                 axes=[0, 1]),
                 [xs, anchors, shapes, fills], layouts=["HWC", None, None, None])[0]
    for o, x, a, s, f in zip(out, xs, anchors, shapes, fills, strict=True):
        np.testing.assert_array_equal(o, reference(x, [0, 1], a, s, f, 2))


@pytest.mark.parametrize("layout, axes", [("FHWC", [0, 1, 2]), ("DHWC", [0, 1, 2]),
                                          ("CHW", [1, 2]), ("HW", [0, 1])])
def test_default_axes_are_all_but_channels(layout, axes):
    shape = (3, 4, 5, 2)[:len(layout)]
    x = np.arange(np.prod(shape), dtype=np.int16).reshape(shape)
    anchor, shape = [1, 2, 0][:len(axes)], [2, 2, 3][:len(axes)]
    (out,) = run_op(lambda fn, a: fn.erase(a, anchor=anchor, shape=shape), [[x]],
                    layouts=[layout])[0]
    np.testing.assert_array_equal(out, reference(x, axes, anchor, shape))


def test_without_anchor_regions_start_at_zero():
    x = [np.ones((4, 5, 1), np.uint8)]
    (out,) = run_op(lambda fn, a: fn.erase(a, shape=[2, 3]), [x], layouts=["HWC"])[0]
    np.testing.assert_array_equal(out, reference(x[0], [0, 1], [0, 0], [2, 3]))


@pytest.mark.parametrize("kwargs, x, layout, message", [
    ({"anchor": [1, 2, 3], "shape": [1, 2, 3]}, np.ones((4, 5, 1), np.uint8), "HWC",
     r"`anchor` and `shape` must hold 2 values \(one per erased axis\) per region, got 3"),
    ({"anchor": [1, 2]}, np.ones((4, 5, 1), np.uint8), "HWC",
     "`anchor` and `shape` must have the same number of values, got 2 and 0"),
    ({"shape": [1, 2], "fill_value": [1, 2, 3]}, np.ones((4, 5, 2), np.uint8), "HWC",
     "Multi-channel fill value does not match the number of channels in the input"),
    ({"shape": [1, 2], "fill_value": [1, 2]}, np.ones((4, 5), np.uint8), "HW",
     "Multi-channel fill_values was provided but channel dimension could not be found"),
    ({"shape": [1, 2]}, np.ones((4, 5, 1), bool), "HWC", "Unsupported data type: bool"),
    ({"shape": [1, 2], "axis_names": "HW"}, np.ones((4, 5, 1), np.uint8), None,
     "Axis 'H' is not present in the input layout"),
])
def test_errors(kwargs, x, layout, message):
    with pytest.raises(PipelineError, match=f"fn.erase: {message}"):
        run_op(lambda fn, a: fn.erase(a, **kwargs), [[x]], layouts=[layout])


def test_normalized_excludes_the_separate_flags():
    with pytest.raises(RuntimeError, match="`normalized` argument is incompatible"):
        run_op(lambda fn, a: fn.erase(a, shape=[0.5, 0.5], normalized=True,
                                      normalized_anchor=True),
               [[np.ones((4, 5, 1), np.uint8)]], layouts=["HWC"])


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_matches_dali(seed):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(seed)
    xs = [rng.integers(0, 256, (int(rng.integers(2, 30)), int(rng.integers(2, 30)), 3),
                       dtype=np.uint8) for _ in range(3)]
    kwargs = {"anchor": rng.uniform(-0.1, 1, 4).tolist(), "shape": rng.uniform(0, 0.6, 4)
              .tolist(), "normalized": True, "centered_anchor": bool(seed % 2),
              "fill_value": rng.uniform(-50, 300, 3).tolist()}

    def build(fn, x):
        return fn.erase(x, **kwargs)

    ours = run_op(build, [xs], layouts=["HWC"])[0]
    real = run_op(build, [xs], layouts=["HWC"], real=True)[0]
    for o, r in zip(ours, real, strict=True):
        np.testing.assert_array_equal(o, r)


def test_regions_follow_the_input_shapes_from_batch_to_batch():
    batches = [[[np.ones((h, h + 2, 1), np.uint8)]] for h in (4, 4, 9, 4)]
    kwargs = {"anchor": [0.25, 0.5], "shape": [0.5, 0.25], "normalized": True}
    outs = run_op(lambda fn, x: fn.erase(x, **kwargs), batches, iterations=len(batches),
                  layouts=["HWC"])
    for (batch,), (out,) in zip(batches, outs, strict=True):
        np.testing.assert_array_equal(
            out[0], reference(batch[0], [0, 1], kwargs["anchor"], kwargs["shape"],
                              normalized=(True, True)))
