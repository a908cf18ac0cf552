"""fn.clahe: OpenCV's CLAHE on 1-channel images, RGB channels or the L of CIE Lab."""

import pathlib

import cv2
import numpy as np
import pytest
from pipeline_utils import run_op

from dali._executor.errors import PipelineError
from dali._ext.kernels import clahe as kernel

PHOTO = pathlib.Path(__file__).resolve().parents[3] / "dali/data/images/photos/astronaut.jpg"


def _photo():
    return cv2.imread(str(PHOTO))[:, :, ::-1]


def _crops(rng, n, channels=3, same=False):
    photo = _photo()
    out = []
    for _ in range(n):
        h, w = (40, 56) if same else rng.integers(1, 90, 2)
        y, x = rng.integers(0, 300, 2)
        out.append(np.ascontiguousarray(photo[y:y + h, x:x + w, :channels]))
    return out


def reference(x, tiles_x, tiles_y, clip_limit, luma_only=True):
    clahe = cv2.createCLAHE(clipLimit=clip_limit, tileGridSize=(tiles_x, tiles_y))
    if x.shape[2] == 1:
        return clahe.apply(x[..., 0])[..., None]
    if not luma_only:
        return np.stack([clahe.apply(np.ascontiguousarray(x[..., c])) for c in range(3)], -1)
    lab = cv2.cvtColor(x, cv2.COLOR_RGB2Lab)
    lab[..., 0] = clahe.apply(np.ascontiguousarray(lab[..., 0]))
    return cv2.cvtColor(lab, cv2.COLOR_Lab2RGB)


def test_kernel_against_opencv_on_one_channel():
    """Random sizes (not multiples of the grid, smaller than it), grids and clip limits."""
    rng = np.random.default_rng(0)
    photo = _photo()
    for trial in range(150):
        h, w = rng.integers(1, 100, 2)
        if trial % 2:
            y, x = rng.integers(0, 300, 2)
            img = np.ascontiguousarray(photo[y:y + h, x:x + w, :1])
        else:
            img = rng.integers(0, rng.integers(1, 256), (h, w, 1)).astype(np.uint8)
        tx, ty = (int(v) for v in rng.integers(1, 17, 2))
        cl = float(rng.choice([0.0, 0.5, 1.0, 2.0, 3.7, 40.0]))
        out = np.empty_like(img)
        kernel.clahe_batch(None, [img], [out], True, tx, ty, cl)
        np.testing.assert_array_equal(out, reference(img, tx, ty, cl), err_msg=str((h, w, tx, ty,
                                                                                   cl)))


@pytest.mark.parametrize("luma_only", [True, False])
@pytest.mark.parametrize("same", [True, False])
def test_against_opencv(luma_only, same):
    """Batches of one shape (one colour conversion for the batch) and of many, with a
    grayscale image among RGB ones."""
    rng = np.random.default_rng(int(same) * 2 + int(luma_only))
    xs = _crops(rng, 4, same=same) + ([] if same else _crops(rng, 1, channels=1))
    kw = {"tiles_x": 5, "tiles_y": 3, "clip_limit": 2.5, "luma_only": luma_only}
    (out,) = run_op(lambda fn, x: fn.clahe(x, **kw), [xs], layouts=["HWC"], num_threads=2)
    for o, x in zip(out, xs, strict=True):
        assert o.dtype == np.uint8 and o.shape == x.shape
        np.testing.assert_array_equal(o, reference(x, 5, 3, 2.5, luma_only))


def test_enhances_contrast_and_bins_has_no_effect():
    x = (_photo()[:96, :128] // 4 + 60).astype(np.uint8)
    outs = [run_op(lambda fn, x, b=b: fn.clahe(x, tiles_x=4, tiles_y=4, clip_limit=3.0, bins=b),
                   [[x]], layouts=["HWC"])[0][0] for b in (256, 64)]
    np.testing.assert_array_equal(outs[0], outs[1])
    assert outs[0].std() > 1.5 * x.std()


@pytest.mark.oracle
@pytest.mark.parametrize("luma_only", [True, False])
def test_against_dali(luma_only):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(42)
    xs = _crops(rng, 3) + _crops(rng, 1, channels=1)

    def build(fn, x):
        return fn.clahe(x, tiles_x=7, tiles_y=4, clip_limit=1.7, luma_only=luma_only)

    ours = run_op(build, [xs], layouts=["HWC"])
    real = run_op(build, [xs], layouts=["HWC"], real=True)
    for o, r in zip(ours[0], real[0], strict=True):
        np.testing.assert_array_equal(o, r)


@pytest.mark.parametrize("x, layout, message", [
    (np.zeros((4, 5, 2), np.uint8), "HWC", "ClaheCPU supports 1 or 3 channels"),
    (np.zeros((4, 5, 3), np.float32), "HWC", "ClaheCPU currently supports only uint8 input"),
    (np.zeros((3, 4, 5), np.uint8), "CHW", 'The layout "CHW" does not match'),
])
def test_input_errors(x, layout, message):
    with pytest.raises(PipelineError, match=f"clahe.*{message}"):
        run_op(lambda fn, x: fn.clahe(x, tiles_x=2, tiles_y=2, clip_limit=2.0), [[x]],
               layouts=[layout])


@pytest.mark.parametrize("name", ["tiles_x", "tiles_y"])
def test_tiles_must_be_positive(name):
    kw = {"tiles_x": 2, "tiles_y": 2, "clip_limit": 2.0, name: 0}
    with pytest.raises(ValueError, match=f"clahe: `{name}` must be positive, got 0"):
        run_op(lambda fn, x: fn.clahe(x, **kw), [[np.zeros((4, 4, 3), np.uint8)]],
               layouts=["HWC"])


def test_clip_limit_is_required():
    with pytest.raises(Exception, match="clip_limit"):
        run_op(lambda fn, x: fn.clahe(x, tiles_x=2, tiles_y=2),
               [[np.zeros((4, 4, 3), np.uint8)]], layouts=["HWC"])
