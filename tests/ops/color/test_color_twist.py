"""fn.color_twist, fn.hsv, fn.hue, fn.saturation: linear YIQ-space colour transforms."""

import math

import numpy as np
import pytest
from color_utils import assert_matches_dali, golden_args, golden_group, kwargs_of
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError
from dali._ext.kernels import color

F32 = np.float32
RNG = np.random.default_rng(11)
IMGS = [RNG.integers(0, 256, (9, 13, 3), dtype=np.uint8),
        RNG.integers(0, 256, (4, 7, 3), dtype=np.uint8)]
YIQ = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]],
               F32).astype(np.float64)


def matrix(hue=0.0, saturation=1.0, value=1.0, brightness=1.0, contrast=1.0):
    """RGB -> YIQ, rotate I/Q by `hue` degrees, scale, back with the exact inverse (the
    factors are float32 arguments)."""
    hue, saturation, value, brightness, contrast = (
        float(F32(v)) for v in (hue, saturation, value, brightness, contrast))
    c, s = math.cos(math.radians(hue)), math.sin(math.radians(hue))
    rot = np.array([[1, 0, 0], [0, c, s], [0, -s, c]])
    scale = np.diag([value, saturation * value, saturation * value])
    return (brightness * contrast * np.linalg.inv(YIQ) @ rot @ scale @ YIQ).astype(F32)


def reference(x, dtype=None, offset=0.0, **factors):
    m = matrix(**factors)
    xf = x.astype(F32)
    y = xf[..., 0:1] * m[:, 0] + xf[..., 1:2] * m[:, 1] + xf[..., 2:3] * m[:, 2] + F32(offset)
    dtype = np.dtype(dtype or x.dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        y = np.clip(np.where(y >= 0, np.floor(y + F32(0.5)), np.ceil(y - F32(0.5))),
                    info.min, info.max)
    return y.astype(dtype)


def twist_offset(brightness, contrast, half):
    return (F32(half) - F32(half) * F32(contrast)) * F32(brightness)


@pytest.mark.parametrize("op, kwargs", [
    ("color_twist", {"hue": 30.0, "saturation": 0.5, "brightness": 1.1, "contrast": 0.6}),
    ("color_twist", {}),
    ("hsv", {"hue": -75.0, "saturation": 1.5, "value": 0.9}),
    ("hue", {"hue": 181.0}),
    ("saturation", {"saturation": 0.0}),
])
def test_against_numpy(op, kwargs):
    (out,) = run_op(lambda fn, x: getattr(fn, op)(x, **kwargs), [IMGS])
    off = 0.0
    if op == "color_twist":
        off = twist_offset(kwargs.get("brightness", 1.0), kwargs.get("contrast", 1.0), 128)
    for o, x in zip(out, IMGS, strict=True):
        np.testing.assert_array_equal(o, reference(x, offset=off, **kwargs))


@pytest.mark.parametrize("in_type, out_type", [
    (np.float32, types.FLOAT), (np.float32, types.UINT8), (np.int16, types.INT32),
    (np.float16, types.FLOAT16), (np.int32, types.FLOAT), (np.uint8, types.INT16)])
def test_types(in_type, out_type):
    x = [(RNG.random((5, 6, 3)) * (1 if np.dtype(in_type).kind == "f" else 300))
         .astype(in_type)]
    kw = {"hue": 20.0, "contrast": 1.5, "dtype": out_type}
    (out,) = run_op(lambda fn, t: fn.color_twist(t, **kw), [x])
    half = 0.5 if np.dtype(in_type).kind == "f" else 128
    want = reference(x[0], dtype=types.to_numpy_type(out_type), hue=20.0, contrast=1.5,
                     offset=twist_offset(1.0, 1.5, half))
    assert out[0].dtype == want.dtype     # float16 rounds to nearest even, like numpy
    np.testing.assert_array_equal(out[0], want)


def test_hsv_defaults_to_uint8():
    x = [RNG.random((3, 4, 3), dtype=np.float32) * 200]
    (out,) = run_op(lambda fn, t: fn.hsv(t, value=1.2), [x])
    assert out[0].dtype == np.uint8
    np.testing.assert_array_equal(out[0], reference(x[0], np.uint8, value=1.2))


def test_saturation_and_integer_extremes():
    x = [np.array([[[255, 255, 255], [0, 0, 0], [255, 0, 0]]], np.uint8)]
    (out,) = run_op(lambda fn, t: fn.color_twist(t, brightness=3.0), [x])
    np.testing.assert_array_equal(out[0], [[[255, 255, 255], [0, 0, 0], [255, 0, 0]]])
    f = [np.array([[[np.nan, 1e10, -1e10]]], F32)]
    (out,) = run_op(lambda fn, t: fn.hue(t, dtype=types.INT32), [f])
    assert out[0].dtype == np.int32 and out[0][0, 0, 0] == np.iinfo(np.int32).min


def test_per_sample_arguments_from_random_uniform():
    """Factors may be argument inputs, e.g. fn.random.uniform outputs (one value per sample)."""
    (out, hue, sat) = run_op(lambda fn, x: (lambda h, s: (fn.color_twist(x, hue=h, saturation=s),
                                                          h, s))(
        fn.random.uniform(range=[-90, 90]), fn.random.uniform(range=[0.2, 1.8])), [IMGS])
    for o, x, h, s in zip(out, IMGS, hue, sat, strict=True):
        np.testing.assert_array_equal(o, reference(x, hue=float(h), saturation=float(s)))
    assert len({float(h) for h in hue}) == 2


def test_sequences_volumes_and_per_frame():
    seq = RNG.integers(0, 256, (3, 4, 5, 3), dtype=np.uint8)
    (out,) = run_op(lambda fn, x: fn.hsv(x, hue=40.0), [[seq]], layouts=["FHWC"])
    np.testing.assert_array_equal(out[0], reference(seq, hue=40.0))
    (out,) = run_op(lambda fn, x: fn.saturation(x, saturation=0.5), [[seq]], layouts=["DHWC"])
    np.testing.assert_array_equal(out[0], reference(seq, saturation=0.5))
    hues = np.array([0.0, 90.0, -45.0], F32)
    (out,) = run_op(lambda fn, x, h: fn.hue(x, hue=fn.per_frame(h)), [[seq], [hues]],
                    layouts=["FHWC", None])
    for f in range(3):
        np.testing.assert_array_equal(out[0][f], reference(seq[f], hue=float(hues[f])))


def test_big_image_is_tiled_and_thread_count_does_not_matter():
    big = [RNG.integers(0, 256, (300, 400, 3), dtype=np.uint8)]
    outs = [run_op(lambda fn, x: fn.color_twist(x, hue=12.0, contrast=1.3), [big],
                   num_threads=n)[0][0] for n in (1, 3)]
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], reference(big[0], hue=12.0, contrast=1.3,
                                                     offset=twist_offset(1.0, 1.3, 128)))


def test_empty_sample():
    (out,) = run_op(lambda fn, x: fn.color_twist(x, hue=3.0), [[np.zeros((0, 4, 3), np.uint8)]])
    assert out[0].shape == (0, 4, 3)


@pytest.mark.parametrize("x, layout, kwargs, match", [
    (np.zeros((3, 4, 5), np.uint8), "CHW", {}, 'layout "CHW" does not match'),
    (np.zeros((4, 5), np.uint8), None, {}, "number of dimensions 2"),
    (np.zeros((4, 5, 4), np.uint8), "HWC", {}, "expected 3 channels"),
    (np.zeros((4, 5, 3), np.int8), "HWC", {}, "Unsupported input type: int8"),
    (np.zeros((4, 5, 3), np.uint8), "HWC", {"dtype": types.FLOAT64},
     "Unsupported output type: double"),
])
def test_bad_input_fails_at_run(x, layout, kwargs, match):
    with pytest.raises(PipelineError, match=match):
        run_op(lambda fn, t: fn.color_twist(t, **kwargs), [[x]], layouts=[layout])


def test_bad_argument_names_and_types():
    with pytest.raises(KeyError, match="value"):
        run_op(lambda fn, t: fn.color_twist(t, value=2.0), [IMGS])
    with pytest.raises(ValueError, match="hue"):
        run_op(lambda fn, t: fn.hue(t, hue="a lot"), [IMGS])


def test_kernel_checks_its_arguments():
    x = np.zeros((4, 3), np.uint8)
    with pytest.raises(TypeError):
        color.linear(x, np.zeros((4, 3), np.float64), np.eye(3), np.zeros(3))
    with pytest.raises(ValueError):
        color.linear(x, np.zeros((4, 3), np.uint8), np.eye(2), np.zeros(3))
    with pytest.raises(ValueError):
        color.linear(x, np.zeros((5, 3), np.uint8), np.eye(3), np.zeros(3))


@pytest.mark.parametrize("group", ["u8", "i16", "f32", "f16"])
def test_golden(group):
    """Outputs recorded from real DALI by tests/goldens/make_color.py."""
    batch, cases, outputs = golden_group(group)
    for (op, kw), want in zip(cases, outputs, strict=True):
        if op not in ("color_twist", "hsv", "hue", "saturation"):
            continue
        (out,) = run_op(lambda fn, x, op=op, kw=kw: getattr(fn, op)(x, **kwargs_of(kw)),
                        [batch], layouts=["HWC"])
        for o, w in zip(out, want, strict=True):
            assert_matches_dali(o, w, f"{group} {op} {kw}")


def test_golden_per_frame():
    batch, cases, outputs = golden_group("seq")
    for (op, kw), arg, want in zip(cases, golden_args("seq"), outputs, strict=True):
        if op not in ("color_twist", "hsv"):
            continue
        (out,) = run_op(lambda fn, x, a, op=op, kw=kw: getattr(fn, op)(x, **kwargs_of(kw, a, fn)),
                        [batch, [arg]], layouts=["FHWC", None])
        assert_matches_dali(out[0], want[0], f"{op} {kw}")


@pytest.mark.oracle
@pytest.mark.parametrize("op", ["color_twist", "hsv", "hue", "saturation"])
def test_live_oracle_with_per_sample_arguments(op):
    imgs = [RNG.integers(0, 256, (17, 23, 3), dtype=np.uint8) for _ in range(4)]
    hue = [F32(v) for v in (-170.0, -20.0, 45.0, 300.0)]
    sat = [F32(v) for v in (0.0, 0.5, 1.0, 2.0)]
    names = {"color_twist": ("hue", "saturation", "brightness", "contrast"),
             "hsv": ("hue", "saturation", "value"), "hue": ("hue",),
             "saturation": ("saturation",)}[op]
    values = {"hue": hue, "saturation": sat, "brightness": sat[::-1], "contrast": sat,
              "value": sat[::-1]}

    def build(fn, x, *args):
        return getattr(fn, op)(x, **dict(zip(names, args, strict=True)))

    inputs = [imgs] + [values[n] for n in names]
    (ours,) = run_op(build, inputs, layouts=["HWC"] + [None] * len(names))
    (real,) = run_op(build, inputs, layouts=["HWC"] + [None] * len(names), real=True)
    for o, w in zip(ours, real, strict=True):
        assert_matches_dali(o, w, op)


@pytest.mark.parametrize("in_type", [np.uint8, np.int16, np.float32, np.float16])
@pytest.mark.parametrize("out_type", [np.uint8, np.int32, np.float32])
def test_batch_of_large_and_tiny_samples_with_argument_inputs(in_type, out_type):
    """Per-sample factors as argument inputs on samples large enough for the uint8 product
    tables and the tiling, and tiny ones grouped into one work item, on two threads."""
    shapes = [(260, 270, 3), (50, 30, 3), (1, 2, 3), (3, 1, 3)]
    top = 250 if in_type != np.int16 else 3000
    x = [(RNG.random(s) * top).astype(in_type) for s in shapes]
    hue = [F32(v) for v in RNG.uniform(-90, 90, len(shapes))]
    sat = [F32(v) for v in RNG.uniform(0.2, 1.8, len(shapes))]
    con = [F32(v) for v in RNG.uniform(0.5, 1.5, len(shapes))]
    dk = types.to_dali_type(np.dtype(out_type).name)
    (out,) = run_op(lambda fn, t, h, s, c: fn.color_twist(
        t, hue=h, saturation=s, contrast=c, dtype=dk), [x, hue, sat, con], num_threads=2)
    half = 0.5 if np.dtype(in_type).kind == "f" else 128
    for i, o in enumerate(out):
        want = reference(x[i], out_type, offset=twist_offset(1.0, con[i], half), hue=hue[i],
                         saturation=sat[i], contrast=con[i])
        np.testing.assert_array_equal(o, want)


def test_large_sequence_per_frame():
    seq = RNG.integers(0, 256, (3, 120, 100, 3), dtype=np.uint8)
    sats = np.array([0.0, 0.7, 1.6], F32)
    (out,) = run_op(lambda fn, x, s: fn.hsv(x, hue=20.0, saturation=fn.per_frame(s)),
                    [[seq], [sats]], layouts=["FHWC", None], num_threads=2)
    for f in range(3):
        np.testing.assert_array_equal(out[0][f], reference(seq[f], hue=20.0,
                                                           saturation=float(sats[f])))
