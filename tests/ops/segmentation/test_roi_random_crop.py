"""fn.roi_random_crop: a crop window start drawn around (or inside) a region of interest."""

import numpy as np
import pytest
from pipeline_utils import run_graph, run_op

from dali._executor.errors import PipelineError


def ranges(crop, start, end, shape=None):
    """The inclusive [lo, hi] of the window start per axis (DALI's rule)."""
    crop, start, end = (np.asarray(v) for v in (crop, start, end))
    lo = np.where(end - start > crop, start, end - crop)
    hi = np.where(end - start > crop, end - crop, start)
    if shape is not None:
        lo, hi = np.clip(lo, 0, np.asarray(shape) - crop), np.clip(hi, 0, np.asarray(shape) - crop)
    return lo, hi


@pytest.mark.parametrize("seed", range(10))
def test_window_contains_or_lies_in_the_roi(seed):
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(1, 4))
    shape = rng.integers(20, 60, ndim)
    crop = rng.integers(1, 20, ndim)
    start = rng.integers(0, shape - 5)
    end = np.minimum(start + rng.integers(1, 30, ndim), shape)
    use_shape = seed % 2 == 0
    kw = {"crop_shape": crop.tolist(), "roi_start": start.tolist()}
    kw.update({"roi_end": end.tolist()} if seed % 3 else {"roi_shape": (end - start).tolist()})
    if use_shape:
        kw["in_shape"] = shape.tolist()
    (out,) = run_graph(lambda fn: fn.roi_random_crop(**kw), batch_size=300, seed=seed)
    lo, hi = ranges(crop, start, end, shape if use_shape else None)
    got = np.stack(out)
    assert got.dtype == np.int64 and got.shape == (300, ndim)
    assert (got >= lo).all() and (got <= hi).all()
    assert (got.min(0) == lo).all() and (got.max(0) == hi).all()   # every start is possible
    inside = end - start > crop
    assert ((got >= start) & (got + crop <= end))[:, inside].all()
    if not use_shape:
        assert ((got <= start) & (got + crop >= end))[:, ~inside].all()
    else:
        assert ((got >= 0) & (got + crop <= shape)).all()


def test_input_shape_from_the_input_and_per_sample_arguments():
    xs = [np.zeros((50, 60, 3), np.uint8), np.zeros((12, 30, 1), np.uint8)]
    starts = [np.array([30, 40], np.int32), np.array([2, 5], np.int32)]
    (out,) = run_op(lambda fn, x, s: fn.roi_random_crop(x, crop_shape=[10, 20], roi_start=s,
                                                        roi_shape=[5, 5]),
                    [xs * 50, starts * 50])
    got = np.stack(out).reshape(50, 2, 2)
    assert (got[:, 0] >= [25, 25]).all() and (got[:, 0] <= [30, 40]).all()
    assert (got[:, 1] >= [0, 0]).all() and (got[:, 1] <= [2, 5]).all()


def test_same_seed_same_windows_whatever_the_threads():
    def build(fn):
        return fn.roi_random_crop(crop_shape=[64, 64], roi_start=[100, 50], roi_shape=[10, 200],
                                  in_shape=[300, 400])

    a = run_graph(build, batch_size=16, seed=5, num_threads=1)[0]
    b = run_graph(build, batch_size=16, seed=5, num_threads=3)[0]
    c = run_graph(build, batch_size=16, seed=6)[0]
    assert all((x == y).all() for x, y in zip(a, b, strict=True))
    assert any((x != y).any() for x, y in zip(a, c, strict=True))


@pytest.mark.parametrize("kwargs, message", [
    ({"roi_end": [35, 45], "roi_shape": [5, 5]},
     "Either ROI end or ROI shape should be defined, but not both"),
    ({}, "Either ROI end or ROI shape should be defined, but not both"),
])
def test_roi_arguments(kwargs, message):
    with pytest.raises(RuntimeError, match=f"roi_random_crop: {message}"):
        run_graph(lambda fn: fn.roi_random_crop(crop_shape=[10, 20], roi_start=[30, 40],
                                                **kwargs))


@pytest.mark.parametrize("kwargs, message", [
    ({"crop_shape": [10, 200], "in_shape": [100, 100]},
     r"Cropping shape can't be bigger than the input shape. Got: crop_shape\[200\] and "
     r"sample_shape\[100\] for d=1"),
    ({"crop_shape": [10, 20], "in_shape": [34, 100]},
     r"ROI can't be out of bounds. Got roi_start\[30\], roi_end\[35\], sample_shape\[34\], "
     "for d=0"),
    ({"crop_shape": [10, 20, 3]}, 'Argument "roi_start" expected shape 3 but got 2 values'),
])
def test_bad_values(kwargs, message):
    with pytest.raises(PipelineError, match=f"roi_random_crop: {message}"):
        run_graph(lambda fn: fn.roi_random_crop(roi_start=[30, 40], roi_shape=[5, 5],
                                                **kwargs))


def test_errors_name_the_sample_of_per_sample_arguments():
    """A crop larger than its input is reported before an earlier sample's ROI outside it."""
    xs = [np.zeros((50, 60), np.uint8)] * 3
    starts = [np.array([1, 2], np.int32), np.array([45, 2], np.int32),
              np.array([1, 2], np.int32)]
    crops = [np.array([10, 10], np.int32)] * 2 + [np.array([10, 61], np.int32)]

    def build(fn, x, s, c):
        return fn.roi_random_crop(x, crop_shape=c, roi_start=s, roi_shape=[6, 6])

    with pytest.raises(PipelineError, match=r"crop_shape\[61\] and sample_shape\[60\] for "
                                            r"d=1\n\(in sample 2 of the batch"):
        run_op(build, [xs, starts, crops])
    with pytest.raises(PipelineError, match=r"roi_start\[45\], roi_end\[51\], "
                                            r"sample_shape\[50\], for d=0\n\(in sample 1 "):
        run_op(build, [xs, starts, crops[:1] * 3])


def test_in_shape_with_an_input():
    with pytest.raises(PipelineError, match="roi_random_crop: ``in_shape`` argument is "
                                            "incompatible with providing an input"):
        run_op(lambda fn, x: fn.roi_random_crop(x, crop_shape=[2], roi_start=[1],
                                                roi_shape=[1], in_shape=[5]),
               [[np.zeros(5, np.uint8)]])


@pytest.mark.oracle
def test_same_ranges_as_dali():
    pytest.importorskip("nvidia.dali")

    def build(fn):
        return fn.roi_random_crop(crop_shape=[10, 20, 4], roi_start=[30, 40, 1],
                                  roi_end=[35, 45, 30], in_shape=[100, 60, 32])

    ours = np.stack(run_graph(build, batch_size=400)[0])
    real = np.stack(run_graph(build, batch_size=400, real=True)[0])
    assert ours.dtype == real.dtype
    np.testing.assert_array_equal(ours.min(0), real.min(0))
    np.testing.assert_array_equal(ours.max(0), real.max(0))
