"""The grid mask kernel: every element type, per-sample parameters, bands of large samples on a
pool, against a float32 NumPy reference; and the checks made before it runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import grid_mask

F32 = np.float32


def reference(x, tile, ratio, angle, sx, sy):
    h, w = x.shape[:2]
    ca, sa = F32(np.cos(F32(angle))) / F32(tile), F32(np.sin(F32(angle))) / F32(tile)
    ys, xs = np.mgrid[0:h, 0:w].astype(F32)
    fx = -(F32(sx) / F32(tile)) + ys * -sa + xs * ca
    fy = -(F32(sy) / F32(tile)) + ys * ca + xs * sa
    keep = ((fx - np.floor(fx)) >= F32(ratio)) | ((fy - np.floor(fy)) >= F32(ratio))
    return np.where(keep[..., None], x, 0)


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32])
def test_types_and_parameters(threads, dtype):
    rng = np.random.default_rng(2)
    shapes = [(300, 200, 3), (5, 7, 1), (0, 4, 3), (40, 41, 4)]
    xs = [(rng.random(s) * 100 + 1).astype(dtype) for s in shapes]
    params = [rng.uniform(1, 30, 4).round(), rng.uniform(0, 1, 4), rng.uniform(-3, 3, 4),
              rng.uniform(-9, 9, 4), rng.uniform(-9, 9, 4)]
    dst = BatchStorage.allocate(dtype, shapes)
    grid_mask.grid_mask_batch(ThreadPool(threads) if threads else None,
                              BatchStorage.from_arrays(xs), dst, *params)
    for i, (x, got) in enumerate(zip(xs, dst.samples(), strict=True)):
        np.testing.assert_array_equal(got, reference(x, *(p[i] for p in params)))


@pytest.mark.parametrize("dtype, tile, message", [
    (np.float64, 4, "unsupported type float64"),
    (np.uint8, 0, "tiles must be positive"),
])
def test_checks(dtype, tile, message):
    src = BatchStorage.from_arrays([np.zeros((2, 2, 1), dtype)])
    dst = BatchStorage.allocate(dtype, [(2, 2, 1)])
    with pytest.raises(ValueError, match=message):
        grid_mask.grid_mask_batch(None, src, dst, tile, 0.5, 0.0, 0.0, 0.0)
