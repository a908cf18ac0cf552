"""fn.normalize: (in - mean) * scale / stddev + shift with given or computed statistics."""

import json
import pathlib

import numpy as np
import pytest
from color_utils import max_error
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError

F32 = np.float32
RNG = np.random.default_rng(21)
IMGS = [(RNG.random((5, 6, 3)) * 100).astype(F32), (RNG.random((7, 4, 3)) * 30 + 5).astype(F32)]
GOLDEN = pathlib.Path(__file__).parents[2] / "goldens" / "normalize.npz"


def reference(xs, axes=None, mean=None, stddev=None, scale=1.0, shift=0.0, epsilon=0.0,
              ddof=0, batch=False, dtype=np.float32):
    """float64 statistics, float32 parameters and arithmetic (DALI's order)."""
    axes = tuple(range(xs[0].ndim)) if axes is None else tuple(axes)
    wide = [x.astype(np.float64) for x in xs]
    counts = [int(np.prod([x.shape[a] for a in axes])) for x in xs]
    if batch:
        counts = [sum(counts)] * len(xs)
    if mean is None:
        sums = [w.sum(axis=axes, keepdims=True) for w in wide]
        if batch:
            sums = [sum(sums)] * len(xs)
        means = [(s / c).astype(F32) for s, c in zip(sums, counts, strict=True)]
    else:
        means = [F32(mean)] * len(xs)
    if stddev is None:
        sq = [((w - m) ** 2).sum(axis=axes, keepdims=True) for w, m in zip(wide, means,
                                                                           strict=True)]
        if batch:
            sq = [sum(sq)] * len(xs)
        invs = [_inv(q, c, ddof, epsilon, scale) for q, c in zip(sq, counts, strict=True)]
    else:
        std = F32(stddev)
        invs = [F32(scale) / (std if not epsilon else np.sqrt(std * std + F32(epsilon)))] \
            * len(xs)
    out = []
    for x, m, inv in zip(xs, means, invs, strict=True):
        y = (x.astype(F32) - m) * inv + F32(shift)
        dt = np.dtype(dtype)
        if dt.kind in "iu":
            info = np.iinfo(dt)
            y = np.clip(np.where(y >= 0, np.floor(y + F32(0.5)), np.ceil(y - F32(0.5))),
                        float(info.min), float(info.max))
        out.append(y.astype(np.float64).astype(dt))
    return out


def _inv(sum_squares, count, ddof, eps, scale):
    var = sum_squares / (count - ddof) + eps if count > ddof else np.full_like(sum_squares, eps)
    with np.errstate(divide="ignore"):
        return np.where(var > 0, scale / np.sqrt(np.where(var > 0, var, 1)), 0).astype(F32)


def assert_matches_normalize(out, want, context=""):
    """Tolerance against real DALI, whose 1 / sqrt is an approximation (SSE rsqrt refined
    once): float outputs within 1e-6 of the sample's largest magnitude; integer outputs within
    1 (or 1e-6 of the largest magnitude, for large scales)."""
    assert out.dtype == want.dtype and out.shape == want.shape, context
    if want.dtype.kind == "f":
        assert max_error(out, want) <= 1e-6, context
    else:
        diff = np.abs(out.astype(np.int64) - want.astype(np.int64)).max(initial=0)
        assert diff <= max(1.0, 1e-6 * np.abs(want).max(initial=0)), context


def assert_close(out, want):
    for o, w in zip(out, want, strict=True):
        assert o.dtype == w.dtype and o.shape == w.shape
        if w.dtype.kind == "f":
            np.testing.assert_allclose(o, w, rtol=0, atol=1e-6 * max(1.0, np.abs(w).max()))
        else:
            np.testing.assert_array_equal(o, w)


@pytest.mark.parametrize("kwargs", [
    {}, {"axes": [0, 1]}, {"axes": [2]}, {"axes": [0, 2], "ddof": 1, "epsilon": 0.5},
    {"mean": 20.0}, {"stddev": 8.0, "scale": 3.0, "shift": 1.5},
    {"mean": 20.0, "stddev": 8.0, "epsilon": 1.0}, {"axes": [1], "mean": 10.0},
])
def test_against_numpy(kwargs):
    (out,) = run_op(lambda fn, x: fn.normalize(x, **kwargs), [IMGS], layouts=["HWC"])
    assert_close(out, reference(IMGS, **kwargs))


def test_axis_names_and_batch():
    (out,) = run_op(lambda fn, x: fn.normalize(x, axis_names="HW"), [IMGS], layouts=["HWC"])
    assert_close(out, reference(IMGS, axes=(0, 1)))
    same = [IMGS[0], IMGS[0][::-1] * 2]
    (out,) = run_op(lambda fn, x: fn.normalize(x, batch=True, axes=[0, 1]), [same])
    assert_close(out, reference(same, axes=(0, 1), batch=True))
    (out,) = run_op(lambda fn, x: fn.normalize(x, batch=True), [IMGS])
    assert_close(out, reference(IMGS, batch=True))
    allx = np.concatenate([x.reshape(-1) for x in out])
    assert abs(allx.mean()) < 1e-5 and abs(allx.std() - 1) < 1e-5


@pytest.mark.parametrize("in_type, dtype", [
    (np.uint8, types.UINT8), (np.uint8, types.INT8), (np.int16, types.INT16),
    (np.uint16, types.UINT16), (np.int32, types.INT32), (np.uint32, types.UINT32),
    (np.int8, types.FLOAT)])
def test_integer_types(in_type, dtype):
    info = np.iinfo(in_type)
    x = [RNG.integers(max(info.min, -1000), min(info.max, 1000) + 1, (6, 5, 2))
         .astype(in_type)]
    kw = {"scale": 30.0, "shift": 100.0, "dtype": dtype}
    (out,) = run_op(lambda fn, t: fn.normalize(t, **kw), [x])
    want = reference(x, scale=30.0, shift=100.0, dtype=types.to_numpy_type(dtype))
    assert out[0].dtype == want[0].dtype
    assert np.abs(out[0].astype(np.int64) - want[0].astype(np.int64)).max() <= 1


def test_tensor_parameters():
    mean = [np.array([[[1.0, 2.0, 3.0]]], F32), np.array([[[4.0, 5.0, 6.0]]], F32)]
    std = [np.array([[[2.0, 0.0, 4.0]]], F32), np.array([[[1.0, 1.0, 8.0]]], F32)]
    (out,) = run_op(lambda fn, x, m, s: fn.normalize(x, mean=m, stddev=s, shift=7.0),
                    [IMGS, mean, std])
    for o, x, m, s in zip(out, IMGS, mean, std, strict=True):
        inv = np.where(s != 0, F32(1) / np.where(s != 0, s, 1), F32(0)).astype(F32)
        np.testing.assert_array_equal(o, (x - m) * inv + F32(7))
    assert (out[0][..., 1] == 7).all()          # a tensor stddev of 0 gives the shift
    # reduced axes follow the parameter shape: per-row means
    rows = [x.mean(axis=(1, 2), keepdims=True).astype(F32) for x in IMGS]
    (out,) = run_op(lambda fn, x, m: fn.normalize(x, mean=m), [IMGS, rows])
    assert_close(out, [reference([x], axes=(1, 2), mean=m)[0] for x, m in zip(IMGS, rows,
                                                                               strict=True)])


def test_degenerate_statistics():
    flat = [np.full((2, 3), 7, F32)]
    (out,) = run_op(lambda fn, x: fn.normalize(x, shift=5.0), [flat])
    np.testing.assert_array_equal(out[0], np.full((2, 3), 5, F32))
    ramp = [np.arange(6, dtype=F32).reshape(2, 3)]
    (out,) = run_op(lambda fn, x: fn.normalize(x, ddof=6, shift=5.0), [ramp])
    np.testing.assert_array_equal(out[0], np.full((2, 3), 5, F32))
    (out,) = run_op(lambda fn, x: fn.normalize(x, ddof=6, epsilon=4.0, shift=5.0), [ramp])
    np.testing.assert_array_equal(out[0], (ramp[0] - F32(2.5)) * F32(0.5) + F32(5))
    (out,) = run_op(lambda fn, x: fn.normalize(x, stddev=0.0), [ramp])
    assert np.isinf(out[0]).all()


def test_empty_samples_and_big_samples_on_threads():
    (out,) = run_op(lambda fn, x: fn.normalize(x, axes=[1]),
                    [[np.zeros((0, 3), F32), np.arange(6, dtype=F32).reshape(2, 3)]])
    assert out[0].shape == (0, 3)
    big = [RNG.integers(-30000, 30000, (600, 500, 2)).astype(np.int16)]
    for axes in ([0], [1], [0, 1, 2]):
        outs = [run_op(lambda fn, x, a=axes: fn.normalize(x, axes=a), [big],
                       num_threads=n)[0][0] for n in (1, 3)]
        np.testing.assert_array_equal(outs[0], outs[1])
        assert_close(outs[:1], reference(big, axes=axes))


@pytest.mark.parametrize("kwargs, x, layout, match", [
    ({"axes": [3]}, IMGS, "HWC", "axis index 3 is out of valid range 0..2"),
    ({"axes": []}, IMGS, "HWC", "at least one reduction axis"),
    ({"axis_names": "Q"}, IMGS, "HWC", "Axis 'Q' is not present"),
    ({"batch": True, "axes": [1]}, IMGS, "HWC", "Batch normalization requires"),
    ({}, [np.zeros((2, 2), np.float64)], None, "unsupported input type: double"),
    ({}, [np.zeros((2, 2), np.float16)], None, "unsupported input type: float16"),
    ({"dtype": types.INT64}, IMGS, "HWC", "unsupported output type: int64"),
])
def test_bad_input_fails_at_run(kwargs, x, layout, match):
    with pytest.raises(PipelineError, match=match):
        run_op(lambda fn, t: fn.normalize(t, **kwargs), [x], layouts=[layout])


def test_parameter_shape_errors():
    mean = [np.zeros((1, 1, 3), F32)] * 2
    with pytest.raises(PipelineError, match=r"parameter shape: \(1, 1, 3\) does not match"):
        run_op(lambda fn, x, m: fn.normalize(x, mean=m, axes=[0]), [IMGS, mean])
    with pytest.raises(PipelineError, match="their shapes must match"):
        run_op(lambda fn, x, m, s: fn.normalize(x, mean=m, stddev=s),
               [IMGS, mean, [np.ones((1, 6, 1), F32)] * 2])
    with pytest.raises(PipelineError, match="number of dimensions"):
        run_op(lambda fn, x, m: fn.normalize(x, mean=m), [IMGS, [F32(1), F32(2)]])


@pytest.mark.parametrize("kwargs, match", [
    ({"axes": [0], "axis_names": "H"}, "mutually exclusive"),
    ({"mean": 1.0, "stddev": 2.0, "axes": [0]}, "Axes must not be specified"),
    ({"batch": True, "mean": np.zeros((1, 1, 3), F32)}, "cannot be used with parameters"),
])
def test_bad_arguments_fail_at_build(kwargs, match):
    with pytest.raises(RuntimeError, match=match):
        run_op(lambda fn, t: fn.normalize(t, **kwargs), [IMGS], layouts=["HWC"])


def _golden_cases():
    g = np.load(GOLDEN)
    for name in ("f32", "batch", "u8", "i16"):
        for k, case in enumerate(json.loads(str(g[f"{name}_cases"]))):
            yield name, k, case


@pytest.mark.parametrize("name, k, case", list(_golden_cases()))
def test_golden(name, k, case):
    """Outputs recorded from real DALI by tests/goldens/make_normalize.py."""
    g = np.load(GOLDEN)
    n = sum(1 for f in g.files if f.startswith(f"{name}_input_"))
    batch = [g[f"{name}_input_{i}"] for i in range(n)]
    inputs, names = [batch], []
    for key, tag in (("mean", "MEAN_T"), ("std", "STD_T")):
        if tag in case.values():
            inputs.append([g[f"{name}_{key}_{i}"] for i in range(n)])
            names.append(tag)
    kwargs = {kk: getattr(types, v) if kk == "dtype" else v for kk, v in case.items()
              if v not in ("MEAN_T", "STD_T")}

    def build(fn, x, *tensors):
        tags = dict(zip(names, tensors, strict=True))
        extra = {kk: tags[v] for kk, v in case.items() if isinstance(v, str) and v in tags}
        return fn.normalize(x, **kwargs, **extra)

    (out,) = run_op(build, inputs, layouts=["HWC"] + [None] * len(names))
    for i, o in enumerate(out):
        assert_matches_normalize(o, g[f"{name}_{k}_{i}"], f"{name} {case}")


@pytest.mark.oracle
def test_live_oracle_batch_and_axes():
    from nvidia.dali import types as real_types
    x = [(RNG.random((8, 6, 3)) * 255).astype(np.uint8) for _ in range(3)]

    def build(t):
        return lambda fn, img: (fn.normalize(img, batch=True, axes=[0, 1]),
                                fn.normalize(img, axis_names="C", ddof=1, dtype=t.UINT8,
                                             scale=50.0, shift=128.0))

    ours = run_op(build(types), [x], layouts=["HWC"])
    real = run_op(build(real_types), [x], layouts=["HWC"], real=True)
    for o, w in zip(ours, real, strict=True):
        for a, e in zip(o, w, strict=True):
            assert_matches_normalize(a, e)
