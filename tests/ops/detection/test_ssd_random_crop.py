"""fn.ssd_random_crop: the crop is a window of the image, the boxes kept are those centred in
it, clamped and relative to it, with their labels; the outcomes over many samples; errors and
the outputs' structure against real DALI."""

import warnings

import numpy as np
import pytest
from detection_utils import random_boxes
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

F32 = np.float32
RNG = np.random.default_rng(41)
N = 24
IMAGES = [RNG.integers(0, 255, (40 + i % 5, 50 + 3 * (i % 4), 3), dtype=np.uint8)
          for i in range(N)]
BOXES = random_boxes(RNG, [1 + i % 4 for i in range(N)])
LABELS = [np.arange(len(b), dtype=np.int32) + 1 for b in BOXES]


def ssd_crop(images, boxes, labels, seed=123, num_threads=1, real=False, layout="HWC",
             **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return run_op(lambda fn, i, b, lab: tuple(fn.ssd_random_crop(i, b, lab, **kwargs)),
                      [images, boxes, labels], layouts=[layout, None, None], seed=seed,
                      num_threads=num_threads, real=real)


def locate(img, crop):
    """(y, x) of the places where `crop` is a window of `img`."""
    h, w = crop.shape[:2]
    return [(y, x) for y in range(img.shape[0] - h + 1) for x in range(img.shape[1] - w + 1)
            if np.array_equal(img[y:y + h, x:x + w], crop)]


@pytest.mark.parametrize("seed", range(4))
def test_crops_are_windows_with_their_boxes(seed):
    crops, boxes, labels = ssd_crop(IMAGES, BOXES, LABELS, seed=seed, num_attempts=10)
    for img, b, lab, c, ob, ol in zip(IMAGES, BOXES, LABELS, crops, boxes, labels,
                                      strict=True):
        assert c.dtype == np.uint8 and c.shape[2] == 3
        assert ob.dtype == F32 and ol.dtype == np.int32 and len(ob) == len(ol)
        if c.shape == img.shape and np.array_equal(c, img) and len(ob) == len(b) and \
                np.array_equal(ob, b):
            continue                                   # no crop
        (y, x), *_ = locate(img, c)
        h, w = img.shape[:2]
        assert c.shape[0] >= 0.3 * h - 1 and c.shape[1] >= 0.3 * w - 1
        lo = np.array([x / w, y / h], F32)
        size = np.array([c.shape[1] / w, c.shape[0] / h], F32)
        assert len(ob) >= 1
        centre = (b[:, :2] + b[:, 2:]) / 2
        inside = ((centre >= lo - 1 / w) & (centre <= lo + size + 1 / w)).all(1)
        idx = [int(np.flatnonzero(lab == v)[0]) for v in ol]
        assert set(idx) <= set(np.flatnonzero(inside)) and idx == sorted(idx)
        want = np.concatenate([(np.clip(b[idx, :2], lo, lo + size) - lo) / size,
                               (np.clip(b[idx, 2:], lo, lo + size) - lo) / size], 1)
        np.testing.assert_allclose(ob, want, atol=2.5 / min(c.shape[:2]))
        assert ((ob >= 0) & (ob <= 1)).all()


def test_outcomes_include_the_whole_image_and_crops():
    crops, boxes, _ = ssd_crop(IMAGES * 3, BOXES * 3, LABELS * 3, num_attempts=5)
    whole = sum(c.shape == img.shape for c, img in zip(crops, IMAGES * 3, strict=True))
    assert 2 <= whole <= 3 * N - 10


def test_zero_attempts_never_crop():
    crops, boxes, labels = ssd_crop(IMAGES, BOXES, LABELS, num_attempts=0)
    for img, b, c, ob in zip(IMAGES, BOXES, crops, boxes, strict=True):
        np.testing.assert_array_equal(c, img)
        np.testing.assert_array_equal(ob, b)


def test_same_seed_same_crops_whatever_the_thread_count():
    a = ssd_crop(IMAGES, BOXES, LABELS, seed=9, num_threads=1, num_attempts=3)
    b = ssd_crop(IMAGES, BOXES, LABELS, seed=9, num_threads=2, num_attempts=3)
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            np.testing.assert_array_equal(u, v)


def test_grayscale_and_label_columns():
    gray = [img[..., 0].copy() for img in IMAGES]
    labels = [lab.reshape(-1, 1) for lab in LABELS]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        crops, _, out = run_op(
            lambda fn, i, b, lab: tuple(fn.ssd_random_crop(i, b, lab, num_attempts=4)),
            [gray, BOXES, labels], layouts=["HW", None, None])
    assert all(c.ndim == 2 for c in crops) and all(o.ndim == 2 and o.shape[1] == 1 for o in out)


def test_is_deprecated():
    with pytest.warns(DeprecationWarning, match="ssd_random_crop` is now deprecated"):
        run_op(lambda fn, i, b, lab: tuple(fn.ssd_random_crop(i, b, lab)),
               [IMAGES[:1], BOXES[:1], LABELS[:1]], layouts=["HWC", None, None])


@pytest.mark.parametrize("inputs, match", [
    ([[IMAGES[0][None]], BOXES[:1], LABELS[:1]], "the image must be HWC or HW"),
    ([IMAGES[:1], [BOXES[0].astype(np.float64)], LABELS[:1]], "must be float32, got float64"),
    ([IMAGES[:1], [np.zeros((2, 5), F32)], [np.zeros(2, np.int32)]], r"must be \[N, 4\]"),
    ([IMAGES[:1], BOXES[:1], [np.zeros(9, np.int32)]], "1 boxes but 9 labels"),
    ([IMAGES[:1], BOXES[:1], [LABELS[0].astype(np.int64)]], "labels must be int32"),
    ([IMAGES[:1], [np.array([[0.5, 0.5, 1.5, 1.0]], F32)], LABELS[:1]], "is out of bounds"),
])
def test_input_errors(inputs, match):
    layout = "FHWC" if inputs[0][0].ndim == 4 else "HWC"
    with pytest.raises(PipelineError, match=f"ssd_random_crop: .*{match}"):
        ssd_crop(*inputs, layout=layout)


@pytest.mark.oracle
def test_structure_matches_dali():
    pytest.importorskip("nvidia.dali")
    ours = ssd_crop(IMAGES, BOXES, LABELS, num_attempts=3)
    theirs = ssd_crop(IMAGES, BOXES, LABELS, num_attempts=3, real=True)
    for o, t in zip(ours, theirs, strict=True):
        assert [x.dtype for x in o] == [x.dtype for x in t]
        assert [x.ndim for x in o] == [x.ndim for x in t]
    assert [x.shape[2] for x in ours[0]] == [x.shape[2] for x in theirs[0]]
