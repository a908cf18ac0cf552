"""fn.jpeg_compression_distortion: a JPEG encode/decode round trip per image, as OpenCV does."""

import pathlib

import cv2
import numpy as np
import pytest
from pipeline_utils import run_op

from dali._executor.errors import PipelineError
from dali.ops.color import jpeg_compression_distortion as jcd

PHOTO = pathlib.Path(__file__).resolve().parents[3] / "dali/data/images/photos/chelsea.jpg"


def reference(x, quality):
    """OpenCV's round trip (what DALI's CPU operator runs) of an RGB image."""
    q = int(np.clip(quality, 1, 100))
    ok, buf = cv2.imencode(".jpg", x[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, q])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)[:, :, ::-1]


def _images(seed, n):
    rng = np.random.default_rng(seed)
    photo = cv2.imread(str(PHOTO))[:, :, ::-1]
    out = []
    for _ in range(n):
        h, w = rng.integers(1, 70, 2)
        y, x = rng.integers(0, 200, 2)
        out.append(np.ascontiguousarray(photo[y:y + h, x:x + w]))
    out.append(rng.integers(0, 256, (11, 6, 3), dtype=np.uint8))      # noise: large errors
    return out


@pytest.mark.parametrize("seed", range(4))
def test_per_sample_quality_against_opencv(seed):
    xs = _images(seed, 4)
    q = [np.array(v, np.int32) for v in np.random.default_rng(seed).integers(-10, 120, len(xs))]
    (out,) = run_op(lambda fn, x, q: fn.jpeg_compression_distortion(x, quality=q), [xs, q],
                    layouts=["HWC", None], num_threads=2)
    for o, x, qi in zip(out, xs, q, strict=True):
        assert o.dtype == np.uint8 and o.shape == x.shape
        np.testing.assert_array_equal(o, reference(x, qi))


def test_quality_changes_the_error():
    x = np.ascontiguousarray(cv2.imread(str(PHOTO))[:, :, ::-1][:96, :128])
    errors = []
    for q in (5, 30, 90):
        (out,) = run_op(lambda fn, x, q=q: fn.jpeg_compression_distortion(x, quality=q),
                        [[x]], layouts=["HWC"])
        errors.append(np.abs(out[0].astype(int) - x).mean())
    assert errors[0] > errors[1] > errors[2] > 0


def test_default_quality_and_sequences():
    """Every frame is an image; the default quality is 50; a 4-D input without a layout is
    FHWC."""
    rng = np.random.default_rng(2)
    seq = np.stack([_images(5, 1)[0][:8, :8]] * 2 + [rng.integers(0, 256, (8, 8, 3), np.uint8)])
    for layout in ("FHWC", None):
        (out,) = run_op(lambda fn, x: fn.jpeg_compression_distortion(x), [[seq]],
                        layouts=[layout])
        np.testing.assert_array_equal(out[0], np.stack([reference(f, 50) for f in seq]))


def test_opencv_fallback_gives_the_same(monkeypatch):
    xs = _images(7, 3)
    kernel = run_op(lambda fn, x: fn.jpeg_compression_distortion(x, quality=35), [xs],
                    layouts=["HWC"])
    monkeypatch.setattr(jcd, "jpeg", None)
    fallback = run_op(lambda fn, x: fn.jpeg_compression_distortion(x, quality=35), [xs],
                      layouts=["HWC"])
    for a, b in zip(kernel[0], fallback[0], strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.oracle
def test_against_dali():
    pytest.importorskip("nvidia.dali")
    xs = _images(11, 3)
    q = [np.array(v, np.int32) for v in (1, 47, 100, 0)]

    def build(fn, x, q):
        return fn.jpeg_compression_distortion(x, quality=q)

    ours = run_op(build, [xs, q], layouts=["HWC", None])
    real = run_op(build, [xs, q], layouts=["HWC", None], real=True)
    for o, r in zip(ours[0], real[0], strict=True):
        np.testing.assert_array_equal(o, r)


@pytest.mark.parametrize("x, layout, message", [
    (np.zeros((4, 5, 1), np.uint8), "HWC", "Invalid number of channels. Expected a "
     "channel-last layout, with 3 channels \\(RGB\\), got shape: 4 x 5 x 1"),
    (np.zeros((4, 5, 3), np.float32), "HWC", "Unsupported input type: float"),
    (np.zeros((3, 4, 5), np.uint8), "CHW", 'The layout "CHW" does not match'),
    (np.zeros((0, 5, 3), np.uint8), "HWC", "Cannot compress an empty image"),
])
def test_errors(x, layout, message):
    with pytest.raises(PipelineError, match=message) as info:
        run_op(lambda fn, x: fn.jpeg_compression_distortion(x), [[x]], layouts=[layout])
    assert "jpeg_compression_distortion" in str(info.value)
