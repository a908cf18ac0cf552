"""fn.color_space_conversion: RGB, BGR, GRAY and YCbCr (BT.601) on uint8 data."""

import cv2
import numpy as np
import pytest
from color_utils import golden_group, kwargs_of
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError
from dali._ext.kernels import color

F32 = np.float32
RNG = np.random.default_rng(9)
# A quarter million colours: the cube on a grid of step 5 plus random ones.  (Exactness on
# every uint8 colour was checked against DALI once; see test_live_oracle_every_colour.)
_GRID = np.arange(0, 256, 5, dtype=np.uint8)
COLOURS = np.concatenate([
    np.stack(np.meshgrid(_GRID, _GRID, _GRID, indexing="ij"), -1).reshape(-1, 3),
    RNG.integers(0, 256, (128 * 1024, 3), dtype=np.uint8)])
KR, KB = 0.299, 0.114
KG = 1 - KR - KB


def _round(v):
    return np.clip(np.floor(v + F32(0.5)), 0, 255).astype(np.uint8)


def to_ycbcr(rgb):
    """BT.601 with float32 coefficients derived from Kr, Kb, summed left to right."""
    r, g, b = (rgb[:, k].astype(F32) for k in range(3))
    rows = [(np.array([KR, KG, KB]) * 219 / 255, 16),
            (np.array([-KR, -KG, 1 - KB]) * 0.5 / (1 - KB) * 224 / 255, 128),
            (np.array([1 - KR, -KG, -KB]) * 0.5 / (1 - KR) * 224 / 255, 128)]
    out = []
    for coef, off in rows:
        c = coef.astype(F32)
        out.append(_round(c[0] * r + c[1] * g + c[2] * b + F32(off)))
    return np.stack(out, -1)


def from_ycbcr(ycc):
    y, cb, cr = (ycc[:, k].astype(F32) - F32(o) for k, o in enumerate((16, 128, 128)))
    cy = F32(255 / 219)
    rr = F32(255 / 224 * 2 * (1 - KR))
    gb, gr = F32(-255 / 224 * 2 * (1 - KB) * KB / KG), F32(-255 / 224 * 2 * (1 - KR) * KR / KG)
    bb = F32(255 / 224 * 2 * (1 - KB))
    return np.stack([_round(cy * y + F32(0) * cb + rr * cr), _round(cy * y + gb * cb + gr * cr),
                     _round(cy * y + bb * cb + F32(0) * cr)], -1)


def convert(src, name, red=0, cout=3):
    out = np.empty((src.shape[0], cout), np.uint8)
    color.convert_space(src, out, name, red)
    return out


@pytest.fixture(params=[True, False], ids=["avx2", "sse41"])
def simd_path(request):
    """RGB -> YCbCr runs color_simd.h's 3x3 map: on its AVX2 path (where the CPU has it) and
    on its SSE4.1 one."""
    was = color.simd_avx2()
    color.simd_avx2(request.param)
    yield
    color.simd_avx2(was)


def test_kernel_against_numpy(simd_path):
    """The kernel against NumPy formulas (and OpenCV for gray), runs of 1 to 17 pixels (the
    vector loops' tails) included."""
    for n in range(1, 18):
        np.testing.assert_array_equal(convert(COLOURS[:n], "rgb_to_ycbcr"),
                                      to_ycbcr(COLOURS[:n]))
    np.testing.assert_array_equal(convert(COLOURS, "rgb_to_ycbcr"), to_ycbcr(COLOURS))
    np.testing.assert_array_equal(convert(COLOURS, "rgb_to_ycbcr", red=2),
                                  to_ycbcr(COLOURS[:, ::-1]))
    np.testing.assert_array_equal(convert(COLOURS, "ycbcr_to_rgb"), from_ycbcr(COLOURS))
    np.testing.assert_array_equal(convert(COLOURS, "ycbcr_to_rgb", red=2),
                                  from_ycbcr(COLOURS)[:, ::-1])
    img = COLOURS.reshape(-1, 1, 3)
    np.testing.assert_array_equal(convert(COLOURS, "to_gray", cout=1),
                                  cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).reshape(-1, 1))
    np.testing.assert_array_equal(convert(COLOURS, "to_gray", red=2, cout=1),
                                  cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).reshape(-1, 1))
    gray = np.arange(256, dtype=np.uint8).reshape(-1, 1)
    y = convert(gray, "gray_to_ycbcr")
    np.testing.assert_array_equal(y[:, 0], _round(gray[:, 0] * F32(219 / 255) + F32(16)))
    assert (y[:, 1:] == 128).all()
    np.testing.assert_array_equal(
        convert(COLOURS[:65536], "ycbcr_to_gray", cout=1)[:, 0],
        _round(F32(255 / 219) * (COLOURS[:65536, 0].astype(F32) - F32(16))))
    np.testing.assert_array_equal(convert(gray, "gray_to_rgb"), np.repeat(gray, 3, 1))
    np.testing.assert_array_equal(convert(COLOURS[:1000], "swap_rb"), COLOURS[:1000, ::-1])


@pytest.mark.parametrize("src, dst, layout, shape, out_shape", [
    ("RGB", "BGR", "HWC", (5, 6, 3), (5, 6, 3)),
    ("RGB", "GRAY", "FHWC", (2, 5, 6, 3), (2, 5, 6, 1)),
    ("GRAY", "YCbCr", "DHWC", (2, 5, 6, 1), (2, 5, 6, 3)),
    ("YCbCr", "BGR", "FDHWC", (2, 2, 3, 4, 3), (2, 2, 3, 4, 3)),
    ("BGR", "YCbCr", None, (5, 6, 3), (5, 6, 3)),
])
def test_operator_layouts(src, dst, layout, shape, out_shape):
    x = RNG.integers(0, 256, shape, dtype=np.uint8)
    (out,) = run_op(lambda fn, t: fn.color_space_conversion(
        t, image_type=getattr(types, src), output_type=getattr(types, dst)), [[x]],
        layouts=[layout])
    assert out[0].shape == out_shape
    flat = x.reshape(-1, shape[-1])
    if src == "RGB" and dst == "BGR":
        want = flat[:, ::-1]
    elif dst == "GRAY":
        want = convert(flat, "to_gray", cout=1)
    elif src == "GRAY":
        want = convert(flat, "gray_to_ycbcr")
    elif src == "YCbCr":
        want = from_ycbcr(flat)[:, ::-1]
    else:
        want = to_ycbcr(flat[:, ::-1])
    np.testing.assert_array_equal(out[0].reshape(-1, out_shape[-1]), want)


def test_big_image_with_threads():
    x = [RNG.integers(0, 256, (256, 512, 3), dtype=np.uint8)]
    (out,) = run_op(lambda fn, t: fn.color_space_conversion(
        t, image_type=types.RGB, output_type=types.YCbCr), [x], num_threads=3)
    np.testing.assert_array_equal(out[0].reshape(-1, 3), to_ycbcr(x[0].reshape(-1, 3)))


@pytest.mark.parametrize("x, src, dst, layout, match", [
    (np.zeros((4, 5, 3), np.float32), "RGB", "BGR", "HWC", "accept only uint8"),
    (np.zeros((4, 5, 3), np.uint8), "RGB", "RGB", "HWC", "conversion not supported"),
    (np.zeros((4, 5, 3), np.uint8), "ANY_DATA", "RGB", "HWC", "conversion not supported"),
    (np.zeros((4, 5, 4), np.uint8), "RGB", "GRAY", "HWC", "expected 3 channels, got 4"),
    (np.zeros((4, 5, 3), np.uint8), "GRAY", "RGB", "HWC", "expected 1 channels, got 3"),
    (np.zeros((3, 4, 5), np.uint8), "RGB", "BGR", "CHW", 'layout "CHW" does not match'),
])
def test_bad_input_fails_at_run(x, src, dst, layout, match):
    with pytest.raises(PipelineError, match=match):
        run_op(lambda fn, t: fn.color_space_conversion(
            t, image_type=getattr(types, src), output_type=getattr(types, dst)), [[x]],
            layouts=[layout])


def test_golden():
    """Outputs recorded from real DALI by tests/goldens/make_color.py: bit-exact."""
    for group in ("csc", "cscgray"):
        batch, cases, outputs = golden_group(group)
        for (_, kw), want in zip(cases, outputs, strict=True):
            (out,) = run_op(lambda fn, x, kw=kw: fn.color_space_conversion(x, **kwargs_of(kw)),
                            [batch], layouts=["HWC"])
            for o, w in zip(out, want, strict=True):
                np.testing.assert_array_equal(o, w, err_msg=str(kw))


@pytest.mark.oracle
@pytest.mark.slow
@pytest.mark.parametrize("src, dst", [("RGB", "YCbCr"), ("YCbCr", "BGR"), ("BGR", "GRAY")])
def test_live_oracle_every_colour(src, dst):
    from nvidia.dali import types as real_types
    x = [np.stack(np.meshgrid(*[np.arange(256, dtype=np.uint8)] * 3, indexing="ij"), -1)
         .reshape(4096, 4096, 3)]
    outs = [run_op(lambda fn, t, T=T: fn.color_space_conversion(
        t, image_type=getattr(T, src), output_type=getattr(T, dst)), [x], real=real)[0][0]
        for real, T in ((False, types), (True, real_types))]
    np.testing.assert_array_equal(outs[0], outs[1])
