"""The roi_random_crop kernel: window starts against the NumPy formulation on the workspace's
draws (per-sample and constant arguments, ROI ends or extents, with and without an input
shape), the batch's first error of each kind, and the checks made before it runs."""

import numpy as np
import pytest

from dali._ext import rng
from dali._ext.kernels import roi_random_crop

RNG = np.random.default_rng(23)
KEY = rng.mix_key(4242, 1)


def _reference(ids, crop, start, end, shape):
    n, ndim = len(ids), crop.shape[1]
    lo = np.where(end - start > crop, start, end - crop)
    hi = np.where(end - start > crop, end - crop, start)
    if shape is not None:
        lo, hi = np.clip(lo, 0, shape - crop), np.clip(hi, 0, shape - crop)
    u = rng.uniform(KEY, ids, np.full(n, ndim, np.int64), 0).reshape(n, ndim)
    return lo + np.minimum(np.floor(u * (hi - lo + 1)).astype(np.int64), hi - lo)


def _starts(ids, crop, start, end, end_is_shape, shape):
    out = np.full((len(ids), crop.shape[1]), -99, np.int64)
    result = roi_random_crop.window_starts(KEY, ids, crop, start, end, end_is_shape, shape, out)
    return result, out


@pytest.mark.parametrize("ndim", [1, 2, 3, 5])
@pytest.mark.parametrize("bounded", [False, True])
@pytest.mark.parametrize("end_is_shape", [False, True])
def test_starts_equal_numpy(ndim, bounded, end_is_shape):
    n = 37
    ids = np.arange(1000, 1000 + n, dtype=np.int64) * 2**20
    shape = RNG.integers(40, 80, (n, ndim))
    crop = RNG.integers(1, 40, (n, ndim))
    start = RNG.integers(0, 20, (n, ndim))
    extent = RNG.integers(0, 20, (n, ndim))
    end = extent if end_is_shape else start + extent
    for constant in ("crop", "start", None):         # one row for every sample
        c = crop[:1] if constant == "crop" else crop
        s = start[:1] if constant == "start" else start
        e = (end[:1] if constant == "start" and end_is_shape else end)
        result, out = _starts(ids, c, s, e, end_is_shape, shape if bounded else None)
        assert result == (0, -1, -1)
        full_start = np.broadcast_to(s, (n, ndim))
        full_end = np.broadcast_to(e, (n, ndim)) + (full_start if end_is_shape else 0)
        want = _reference(ids, np.broadcast_to(c, (n, ndim)), full_start, full_end,
                          shape if bounded else None)
        np.testing.assert_array_equal(out, want)


def test_first_error_of_each_kind_in_batch_order():
    """Crops larger than the input are reported before ROIs outside it, whatever the sample;
    nothing is written."""
    ids = np.arange(4, dtype=np.int64)
    shape = np.full((4, 2), 50)
    crop = np.full((4, 2), 10)
    start = np.full((4, 2), 5)
    end = np.full((4, 2), 20)
    start[1, 1] = -1                       # ROI outside, sample 1
    crop[3, 0] = 51                        # crop too large, sample 3
    result, out = _starts(ids, crop, start, end, False, shape)
    assert result == (roi_random_crop.CROP_TOO_LARGE, 3, 0) and (out == -99).all()
    crop[3, 0] = 10
    end[0, 1] = 51
    assert _starts(ids, crop, start, end, False, shape)[0] == (roi_random_crop.ROI_OUTSIDE, 0,
                                                               1)
    end[0, 1] = 20
    assert _starts(ids, crop, start, end, False, shape)[0] == (roi_random_crop.ROI_OUTSIDE, 1,
                                                               1)


def test_checks_before_running():
    ids = np.arange(3, dtype=np.int64)
    rows = np.zeros((3, 2), np.int64)
    with pytest.raises(ValueError, match="start must have 1 or 3 rows of 2 values"):
        _starts(ids, rows, np.zeros((2, 2), np.int64), rows, False, None)
    with pytest.raises(ValueError, match="shape must have 1 or 3 rows of 2 values"):
        _starts(ids, rows, rows, rows, False, np.zeros((3, 3), np.int64))
    with pytest.raises(ValueError, match="out must have 3 rows"):
        roi_random_crop.window_starts(KEY, ids, rows, rows, rows, False, None,
                                      np.zeros((2, 2), np.int64))
