"""fn.brightness_contrast, fn.brightness, fn.contrast: out = in * mul + add per element."""

import numpy as np
import pytest
from color_utils import golden_args, golden_group, kwargs_of
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError

F32 = np.float32
RNG = np.random.default_rng(5)
IMGS = [RNG.integers(0, 256, (6, 9, 3), dtype=np.uint8),
        RNG.integers(0, 256, (5, 4, 1), dtype=np.uint8)]
FULL = {np.uint8: 255, np.int16: 32767, np.int32: 2147483647, np.float32: 1}
HALF = {np.uint8: 128, np.int16: 16384, np.int32: 1 << 30, np.float32: 0.5}


def reference(x, dtype=None, brightness=1.0, brightness_shift=0.0, contrast=1.0,
              contrast_center=None):
    """DALI's formula, rearranged into (mul, add) and evaluated in float32."""
    dtype = np.dtype(dtype or x.dtype)
    b, s, c = F32(brightness), F32(brightness_shift), F32(contrast)
    center = F32(HALF[x.dtype.type] if contrast_center is None else contrast_center)
    add = s * F32(FULL[dtype.type]) + b * (center - c * center)
    y = x.astype(F32) * (b * c) + add
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        # Rounded half away from zero in float64: y + 0.5 in float32 is itself rounded (to
        # even) once |y| >= 2**23 and would move integral values by one.
        y = np.where(np.isnan(y), 0, y).astype(np.float64)
        y = np.clip(np.where(y >= 0, np.floor(y + 0.5), np.ceil(y - 0.5)),
                    float(info.min), float(info.max))
        return y.astype(dtype)
    return y.astype(dtype)


@pytest.mark.parametrize("op, kwargs", [
    ("brightness_contrast", {"brightness": 1.3, "brightness_shift": 0.1, "contrast": 0.7}),
    ("brightness_contrast", {"contrast": 2.0, "contrast_center": 40.0}),
    ("brightness", {"brightness": 1.5}),           # 142.5 -> 143: halves round away from 0
    ("brightness", {"brightness_shift": -0.2}),
    ("contrast", {"contrast": 0.0}),               # uniform gray: the center, 128
])
def test_against_numpy(op, kwargs):
    (out,) = run_op(lambda fn, x: getattr(fn, op)(x, **kwargs), [IMGS])
    for o, x in zip(out, IMGS, strict=True):
        np.testing.assert_array_equal(o, reference(x, **kwargs))
    if op == "contrast":
        assert (out[0] == 128).all()


@pytest.mark.parametrize("in_type", [np.uint8, np.int16, np.int32, np.float32])
@pytest.mark.parametrize("out_type", [None, np.uint8, np.int16, np.int32, np.float32])
def test_type_pairs(in_type, out_type):
    """The values are not rescaled between types; the shift is in units of the output range,
    the default contrast center is half the input range."""
    scale = 1.3 if in_type == np.float32 else {np.uint8: 255, np.int16: 30000,
                                               np.int32: 2e9}[in_type]
    x = [(RNG.random((4, 5, 3)) * scale - (0 if in_type == np.uint8 else scale / 3))
         .astype(in_type)]
    kw = {"brightness": 0.8, "brightness_shift": 0.05, "contrast": 1.4}
    dk = {} if out_type is None else {"dtype": types.to_dali_type(np.dtype(out_type).name)}
    (out,) = run_op(lambda fn, t: fn.brightness_contrast(t, **kw, **dk), [x])
    want = reference(x[0], out_type, **kw)
    assert out[0].dtype == want.dtype
    np.testing.assert_array_equal(out[0], want)


def test_float_to_integer_saturation_and_nan():
    x = [np.array([[[np.nan, np.inf, -np.inf], [1e10, -1e10, 2.5]]], F32)]
    outs = run_op(lambda fn, t: tuple(fn.brightness(t, dtype=d) for d in
                                      (types.UINT8, types.INT16, types.INT32)), [x])
    np.testing.assert_array_equal(outs[0][0].ravel(), [0, 255, 0, 255, 0, 3])
    np.testing.assert_array_equal(outs[1][0].ravel(), [0, 32767, -32768, 32767, -32768, 3])
    lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    np.testing.assert_array_equal(outs[2][0].ravel(), [lo, hi, lo, hi, lo, 3])


def test_per_sample_and_per_frame_arguments():
    b = [F32(0.5), F32(2.0)]
    (out,) = run_op(lambda fn, x, v: fn.brightness(x, brightness=v), [IMGS, b])
    for o, x, v in zip(out, IMGS, b, strict=True):
        np.testing.assert_array_equal(o, reference(x, brightness=v))
    seq = RNG.integers(0, 256, (3, 2, 4, 2), dtype=np.uint8)
    c = np.array([0.5, 1.0, 3.0], F32)
    (out,) = run_op(lambda fn, x, v: fn.contrast(x, contrast=fn.per_frame(v)), [[seq], [c]],
                    layouts=["FHWC", None])
    for f in range(3):
        np.testing.assert_array_equal(out[0][f], reference(seq[f], contrast=c[f]))
    with pytest.raises(PipelineError, match="one value per frame"):
        run_op(lambda fn, x, v: fn.contrast(x, contrast=fn.per_frame(v)), [[seq], [c[:2]]],
               layouts=["FHWC", None])


def test_from_random_uniform():
    (out, b) = run_op(lambda fn, x: (lambda v: (fn.brightness(x, brightness=v), v))(
        fn.random.uniform(range=[0.5, 1.5])), [IMGS])
    for o, x, v in zip(out, IMGS, b, strict=True):
        np.testing.assert_array_equal(o, reference(x, brightness=float(v)))


def test_layouts():
    vol = RNG.integers(0, 256, (2, 3, 4, 5), dtype=np.uint8)
    for layout in ("DHWC", "FHWC", None):
        (out,) = run_op(lambda fn, x: fn.brightness(x, brightness=2.0), [[vol]],
                        layouts=[layout])
        np.testing.assert_array_equal(out[0], reference(vol, brightness=2.0))


@pytest.mark.parametrize("x, layout, kwargs, match", [
    (np.zeros((3, 4, 5), np.uint8), "CHW", {}, 'layout "CHW" does not match'),
    (np.zeros((4, 5, 3), np.float16), "HWC", {}, "Unsupported input type: float16"),
    (np.zeros((4, 5, 3), np.uint16), "HWC", {}, "Unsupported input type: uint16"),
    (np.zeros((4, 5, 3), np.uint8), "HWC", {"dtype": types.FLOAT16},
     "Unsupported output type: float16"),
])
def test_bad_input_fails_at_run(x, layout, kwargs, match):
    with pytest.raises(PipelineError, match=match):
        run_op(lambda fn, t: fn.brightness_contrast(t, **kwargs), [[x]], layouts=[layout])


def test_arguments_belong_to_their_operator():
    with pytest.raises(KeyError, match="contrast"):
        run_op(lambda fn, t: fn.brightness(t, contrast=2.0), [IMGS])


@pytest.mark.parametrize("group", ["u8", "i16", "f32"])
def test_golden(group):
    """Outputs recorded from real DALI by tests/goldens/make_color.py: bit-exact."""
    batch, cases, outputs = golden_group(group)
    for (op, kw), want in zip(cases, outputs, strict=True):
        if op not in ("brightness_contrast", "brightness", "contrast"):
            continue
        (out,) = run_op(lambda fn, x, op=op, kw=kw: getattr(fn, op)(x, **kwargs_of(kw)),
                        [batch], layouts=["HWC"])
        for o, w in zip(out, want, strict=True):
            assert o.dtype == w.dtype
            np.testing.assert_array_equal(o, w, err_msg=f"{group} {op} {kw}")


def test_golden_per_frame():
    batch, cases, outputs = golden_group("seq")
    (op, kw), arg, want = cases[0], golden_args("seq")[0], outputs[0]
    (out,) = run_op(lambda fn, x, a: getattr(fn, op)(x, **kwargs_of(kw, a, fn)),
                    [batch, [arg]], layouts=["FHWC", None])
    np.testing.assert_array_equal(out[0], want[0])


@pytest.mark.oracle
@pytest.mark.parametrize("in_type", [np.uint8, np.int16, np.float32])
def test_live_oracle(in_type):
    from nvidia.dali import types as real_types
    x = [(RNG.random((7, 8, 2)) * (1 if in_type == np.float32 else 250)).astype(in_type)
         for _ in range(3)]
    b = [F32(v) for v in (0.3, 1.0, 1.7)]
    c = [F32(v) for v in (2.0, 0.5, 1.0)]

    def build(dtype):
        return lambda fn, img, bv, cv: (fn.brightness_contrast(img, brightness=bv, contrast=cv),
                                        fn.brightness_contrast(img, brightness_shift=0.1,
                                                               contrast_center=30.0,
                                                               dtype=dtype))
    ours = run_op(build(types.INT16), [x, b, c])
    real = run_op(build(real_types.INT16), [x, b, c], real=True)
    for o, w in zip(ours, real, strict=True):
        for a, e in zip(o, w, strict=True):
            assert a.dtype == e.dtype
            np.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("in_type", [np.uint8, np.int16, np.int32, np.float32])
@pytest.mark.parametrize("out_type", [np.uint8, np.int16, np.int32, np.float32])
def test_batch_of_large_and_tiny_samples_with_argument_inputs(in_type, out_type):
    """Per-sample factors given as argument inputs on samples large enough for the uint8
    tables and the tiling (and tiny ones grouped into one work item), on two threads."""
    shapes = [(300, 250, 3), (40, 30, 3), (2, 2, 1), (1, 1, 3), (70, 80, 3)]
    top = {np.uint8: 256, np.int16: 30000, np.int32: 1 << 20, np.float32: 2}[in_type]
    x = [(RNG.random(s) * top).astype(in_type) for s in shapes]
    b = [F32(v) for v in RNG.uniform(0.2, 2.0, len(shapes))]
    c = [F32(v) for v in RNG.uniform(0.2, 2.0, len(shapes))]
    s = [F32(v) for v in RNG.uniform(-0.2, 0.2, len(shapes))]
    dk = types.to_dali_type(np.dtype(out_type).name)
    (out,) = run_op(lambda fn, t, bb, cc, ss: fn.brightness_contrast(
        t, brightness=bb, contrast=cc, brightness_shift=ss, dtype=dk), [x, b, c, s],
        num_threads=2)
    for i, o in enumerate(out):
        np.testing.assert_array_equal(o, reference(x[i], out_type, brightness=b[i],
                                                   contrast=c[i], brightness_shift=s[i]))


def test_large_sequence_per_frame_and_volume():
    """Frames large enough for the uint8 table, each with its own factor; a volume (DHWC)
    with one factor per sample."""
    seq = RNG.integers(0, 256, (3, 200, 150, 3), dtype=np.uint8)
    c = np.array([0.5, 1.0, 3.0], F32)
    (out,) = run_op(lambda fn, x, v: fn.contrast(x, contrast=fn.per_frame(v)), [[seq], [c]],
                    layouts=["FHWC", None], num_threads=2)
    for f in range(3):
        np.testing.assert_array_equal(out[0][f], reference(seq[f], contrast=c[f]))
    (out,) = run_op(lambda fn, x: fn.brightness(x, brightness=1.7, dtype=types.INT16),
                    [[seq]], layouts=["DHWC"])
    np.testing.assert_array_equal(out[0], reference(seq, np.int16, brightness=1.7))
