"""fn.experimental.warp_perspective against OpenCV's warpPerspective (what DALI's CPU operator
computes), goldens from real DALI and real DALI itself.

The float kernels match OpenCV except where a source position is within rounding of a pixel
boundary (see _ext/kernels/warp_perspective.h), so comparisons allow a few such pixels; linear
interpolation of int16 and 2-channel images matches exactly.
"""

import cv2
import numpy as np
import pytest
import transforms_utils as tu
from golden_cases import case_indices, load_case
from pipeline_utils import run_op

from dali import types

GOLDEN = "warp_perspective.npz"
CV_BORDER = {"constant": cv2.BORDER_CONSTANT, "replicate": cv2.BORDER_REPLICATE,
             "reflect": cv2.BORDER_REFLECT, "reflect_101": cv2.BORDER_REFLECT_101,
             "wrap": cv2.BORDER_WRAP}
SHIFT = {s: np.array([[1, 0, s], [0, 1, s], [0, 0, 1.0]]) for s in (-0.5, 0.5)}
M1 = [0.9, -0.2, 3.0, 0.1, 1.1, -2.0, -0.002, 0.001, 1.05]


def assert_close(out, ref, exact=False, nearest=False):
    """At most 1% of the values differ (by at most one unit, or 1e-4 relative for float,
    for linear interpolation); none with `exact`."""
    assert out.dtype == ref.dtype and out.shape == ref.shape
    diff = np.abs(out.astype(np.float64) - ref.astype(np.float64))
    if exact:
        np.testing.assert_array_equal(out, ref)
        return
    bad = diff > (1e-4 * np.abs(ref.astype(np.float64)) if ref.dtype.kind == "f" else 0)
    assert bad.mean() <= 0.01, f"{bad.sum()} of {bad.size} values differ"
    if not nearest and ref.dtype.kind != "f":
        assert diff.max() <= 1


def reference(img, m, size=None, interp=cv2.INTER_LINEAR, border="constant", fill=0,
              origin="corner", inverse=True):
    m = np.asarray(m, np.float64).reshape(3, 3)
    if origin == "corner":
        m = SHIFT[-0.5] @ m @ SHIFT[0.5]
    h, w = size or img.shape[:2]
    flags = interp | (cv2.WARP_INVERSE_MAP if inverse else 0)
    out = cv2.warpPerspective(img, m, (w, h), flags=flags, borderMode=CV_BORDER[border],
                              borderValue=(fill,) * 4)
    return out.reshape((h, w) + img.shape[2:])


@pytest.mark.parametrize("k", case_indices(GOLDEN))
def test_golden(k):
    case, args, layouts, batch, expected = load_case(GOLDEN, k, 2, ("interp_type",))
    layout = layouts.get(case["input"], "HWC")
    out, out_layout = tu.run(lambda fn, x: fn.experimental.warp_perspective(x, **args), [batch],
                             [layout])
    assert out_layout == layout
    nearest = args.get("interp_type") == types.INTERP_NN
    exact = case["input"] in ("i16", "u8c2") and not nearest
    for o, e in zip(out, expected, strict=True):
        assert_close(o, e, exact, nearest)


@pytest.mark.parametrize("seed", range(6))
def test_random_against_opencv(seed):
    rng = np.random.default_rng(seed)
    dtype = [np.uint8, np.uint16, np.int16, np.float32][seed % 4]
    c = [1, 3, 4, 2][seed % 4]
    imgs = [rng.integers(0, 200, (int(rng.integers(5, 60)), int(rng.integers(5, 60)), c))
            .astype(dtype) for _ in range(3)]
    m = np.eye(3) + rng.normal(scale=[[0.1, 0.1, 3], [0.1, 0.1, 3], [0.002, 0.002, 0]])
    border = list(CV_BORDER)[seed % 5]
    interp = [types.INTERP_NN, types.INTERP_LINEAR][seed % 2]
    out, _ = tu.run(lambda fn, x: fn.experimental.warp_perspective(
        x, matrix=m.reshape(-1).tolist(), border_mode=border, interp_type=interp,
        fill_value=[3], size=[21, 33]), [imgs], ["HWC"])
    cv_interp = cv2.INTER_NEAREST if interp == types.INTERP_NN else cv2.INTER_LINEAR
    for o, x in zip(out, imgs, strict=True):
        ref = reference(x, m, (21, 33), cv_interp, border, 3)
        nearest = interp == types.INTERP_NN
        assert_close(o, ref, exact=(dtype == np.int16 or c == 2) and not nearest,
                     nearest=nearest)


def test_matrix_input_and_inverse_map():
    rng = np.random.default_rng(1)
    imgs = [rng.integers(0, 256, (30, 40, 3)).astype(np.uint8) for _ in range(2)]
    mats = [np.float32(M1).reshape(3, 3), np.float32(np.eye(3) * [[1.1], [0.9], [1]])]
    out, _ = tu.run(lambda fn, x, m: fn.experimental.warp_perspective(x, m), [imgs, mats],
                    ["HWC"])
    for o, x, m in zip(out, imgs, mats, strict=True):
        assert_close(o, reference(x, m))
    out, _ = tu.run(lambda fn, x: fn.experimental.warp_perspective(
        x, matrix=M1, inverse_map=False, pixel_origin="center"), [imgs], ["HWC"])
    assert_close(out[0], reference(imgs[0], M1, origin="center", inverse=False))


def test_per_frame_matrices():
    rng = np.random.default_rng(2)
    seq = [rng.integers(0, 256, (2, 20, 25, 3)).astype(np.uint8)]
    mats = [np.float32([M1, np.eye(3).reshape(-1)]).reshape(2, 3, 3)]
    out, layout = tu.run(lambda fn, x, m: fn.experimental.warp_perspective(
        x, matrix=fn.per_frame(m)), [seq, mats], ["FHWC"])
    assert layout == "FHWC" and out[0].shape == seq[0].shape
    assert_close(out[0][0], reference(seq[0][0], M1))
    np.testing.assert_array_equal(out[0][1], seq[0][1])


def _frame_matrices(frames, seed):
    rng = np.random.default_rng(seed)
    m = np.tile(np.eye(3, dtype=np.float32), (frames, 1, 1))
    m[:, :2, :] += rng.uniform(-0.1, 0.1, (frames, 2, 3)).astype(np.float32)
    m[:, 2, :2] = rng.uniform(-0.002, 0.002, (frames, 2))
    return m


@pytest.mark.parametrize("layout", ["FHWC", "FCHW", "HWC", "HW"])
def test_per_frame_matrix_input(layout):
    """A per-frame matrix input: every frame warped by its matrix; images (HWC, HW) become
    sequences of one frame per matrix (DALI repeats the image per frame)."""
    rng = np.random.default_rng(4)
    mats = [_frame_matrices(3, 1), _frame_matrices(2, 2)]
    shape = {"FHWC": (17, 21, 3), "FCHW": (3, 17, 21), "HWC": (17, 21, 3), "HW": (17, 21)}
    seq = layout[0] == "F"
    x = [rng.integers(0, 256, ((len(m),) if seq else ()) + shape[layout]).astype(np.uint8)
         for m in mats]
    out, out_layout = tu.run(lambda fn, s, m: fn.experimental.warp_perspective(
        s, fn.per_frame(m), fill_value=[7]), [x, mats], [layout])
    assert out_layout == (layout if seq else "F" + layout)
    for o, image, m in zip(out, x, mats, strict=True):
        assert o.shape == ((len(m),) + shape[layout])
        for f in range(len(m)):
            frame = image[f] if seq else image
            if layout == "FCHW":
                for c in range(3):
                    assert_close(o[f][c], reference(frame[c], m[f].reshape(-1), fill=7))
            else:
                assert_close(o[f], reference(frame, m[f].reshape(-1), fill=7))


@pytest.mark.parametrize("build, x, layout, mats, message", [
    (lambda fn, s, m: fn.experimental.warp_perspective(s, fn.per_frame(m)),
     [np.zeros((3, 5, 6, 3), np.uint8)], "FHWC", [_frame_matrices(1, 0)],
     "The input 0 and the input 1 have different number of frames for sample 0, "
     "respectively: 3 and 1"),
    (lambda fn, s, m: fn.experimental.warp_perspective(s, matrix=fn.per_frame(m)),
     [np.zeros((3, 5, 6, 3), np.uint8)], "FHWC", [_frame_matrices(4, 0)],
     "The sample 0 of tensor argument `matrix` contains 4 per-frame parameters, but there are 3 "
     "frames"),
    (lambda fn, s, m: fn.experimental.warp_perspective(s, fn.per_frame(m)),
     [np.zeros((3, 5, 6), np.uint8)], "CHW", [_frame_matrices(2, 0)],
     "cannot go with planar images"),
    (lambda fn, s, m: fn.experimental.warp_perspective(s, fn.per_frame(m)),
     [np.zeros((5, 6, 3), np.uint8)], "HWC", [_frame_matrices(0, 0)],
     "Samples with no frames are not allowed"),
])
def test_per_frame_errors(build, x, layout, mats, message):
    with pytest.raises(RuntimeError, match=message):
        tu.run(build, [x, mats], [layout])


@pytest.mark.oracle
@pytest.mark.parametrize("layout", ["FHWC", "HWC"])
def test_oracle_per_frame_matrix_input(layout):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(6)
    mats = [_frame_matrices(3, 3), _frame_matrices(2, 4)]
    x = [rng.integers(0, 256, ((len(m),) if layout == "FHWC" else ()) + (15, 19, 3))
         .astype(np.uint8) for m in mats]

    def build(fn, s, m):
        return fn.experimental.warp_perspective(s, fn.per_frame(m), border_mode="reflect",
                                                size=(12, 22))
    ours, ours_layout = tu.run(build, [x, mats], [layout])
    theirs, their_layout = tu.run(build, [x, mats], [layout], real=True)
    assert ours_layout == their_layout == "FHWC"
    for a, b in zip(ours, theirs, strict=True):
        assert_close(a, b)


def test_planar_is_warped_plane_by_plane():
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (3, 24, 28)).astype(np.uint8)
    out, layout = tu.run(lambda fn, x: fn.experimental.warp_perspective(
        x, matrix=M1, fill_value=[40]), [[img]], ["CHW"])
    assert layout == "CHW"
    for c in range(3):
        assert_close(out[0][c], reference(img[c], M1, fill=40))


@pytest.mark.parametrize("kwargs, layout, x, exc, message", [
    ({}, "HWC", np.zeros((4, 4, 3), np.uint8), RuntimeError,
     'Argument "matrix" expected shape 3 x 3 but got 0 values'),
    ({"matrix": M1[:6]}, "HWC", np.zeros((4, 4, 3), np.uint8), RuntimeError,
     'Argument "matrix" expected shape 3 x 3 but got 6 values'),
    ({"matrix": M1, "border_mode": "foo"}, "HWC", np.zeros((4, 4, 3), np.uint8),
     RuntimeError, "Invalid border_mode argument: foo"),
    ({"matrix": M1, "fill_value": [1, 2]}, "HWC", np.zeros((4, 4, 3), np.uint8),
     RuntimeError, "Number of values provided as a fill_value should match the number of "
                   "channels.\nNumber of channels: 3. Number of values provided: 2."),
    ({"matrix": M1, "fill_value": [1, 2, 3]}, "CHW", np.zeros((3, 4, 4), np.uint8),
     RuntimeError, "Only scalar fill_value can be provided when processing data in planar"),
    ({"matrix": M1}, "HWC", np.zeros((4, 4, 3), np.int32), TypeError,
     "Unsupported input type: int32"),
    ({"matrix": M1}, "HWC", np.zeros((4, 4, 5), np.uint8), RuntimeError,
     "more than 4 interleaved channels"),
    ({"matrix": M1}, "HWC", np.zeros((0, 4, 3), np.uint8), RuntimeError,
     "cannot warp an empty image"),
    ({"matrix": M1}, "WHC", np.zeros((4, 4, 3), np.uint8), ValueError,
     'The layout "WHC" does not match any of the allowed layouts'),
    ({"matrix": M1, "interp_type": types.INTERP_CUBIC}, "HWC", np.zeros((4, 4, 3), np.uint8),
     NotImplementedError, "INTERP_CUBIC is not implemented"),
    ({"matrix": M1, "interp_type": types.INTERP_LANCZOS3}, "HWC",
     np.zeros((4, 4, 3), np.uint8), RuntimeError, "Unknown interpolation type: 3"),
])
def test_errors(kwargs, layout, x, exc, message):
    with pytest.raises((exc, RuntimeError), match="warp_perspective") as e:
        tu.run(lambda fn, v: fn.experimental.warp_perspective(v, **kwargs), [[x]], [layout])
    assert message in str(e.value)


@pytest.mark.oracle
def test_oracle_size_and_borders():
    rng = np.random.default_rng(4)
    imgs = [rng.integers(0, 256, (h, w, 3)).astype(np.uint8) for h, w in ((40, 50), (33, 21))]
    for border in CV_BORDER:
        def build(fn, x, border=border):
            return fn.experimental.warp_perspective(x, matrix=M1, size=[25, 61],
                                                    border_mode=border)
        ours, _ = tu.run(build, [imgs], ["HWC"])
        real, _ = tu.run(build, [imgs], ["HWC"], real=True)
        for o, r in zip(ours, real, strict=True):
            assert_close(o, r)


def test_batches_of_other_shapes_get_their_own_plan():
    """The plan of a constant matrix is remembered per batch of input shapes only."""
    rng = np.random.default_rng(6)
    batches = [[[rng.integers(0, 256, (h, w, 3)).astype(np.uint8) for h, w in shapes]]
               for shapes in (((20, 30), (31, 22)), ((20, 30), (31, 22)), ((12, 40), (9, 9)))]
    outs = run_op(lambda fn, x: fn.experimental.warp_perspective(x, matrix=M1), batches,
                  iterations=3, layouts=["HWC"])
    for (batch,), (out,) in zip(batches, outs, strict=True):
        for o, x in zip(out, batch, strict=True):
            assert_close(o, reference(x, M1))
