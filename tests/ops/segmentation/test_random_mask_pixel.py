"""fn.segmentation.random_mask_pixel: a uniformly drawn (foreground) pixel of each mask."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from pipeline_utils import run_op

from dali._executor.errors import PipelineError
from dali._ext.kernels import mask as kernel


def _masks(rng, n, dtype=np.uint8):
    out = []
    for _ in range(n):
        shape = tuple(rng.integers(1, 12, 3))
        m = np.where(rng.random(shape) < rng.random() * 0.3, rng.integers(1, 5, shape), 0)
        out.append(m.astype(dtype))
    return out


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float32, np.bool_])
def test_picked_pixel_is_foreground(seed, dtype):
    rng = np.random.default_rng(seed)
    masks = _masks(rng, 6, dtype)
    kw = {"foreground": 1} if dtype == np.bool_ or seed % 2 else {"foreground": 1, "value": 2}
    (out,) = run_op(lambda fn, m: fn.segmentation.random_mask_pixel(m, **kw), [masks],
                    seed=seed)
    for o, m in zip(out, masks, strict=True):
        assert o.dtype == np.int64 and o.shape == (m.ndim,)
        assert ((o >= 0) & (o < m.shape)).all()
        fg = m == 2 if "value" in kw else m > 0
        if fg.any():
            assert fg[tuple(o)]


def test_threshold_and_per_sample_arguments():
    m = np.zeros((6, 7), np.int16) - 3
    m[2, 3], m[4, 1] = 2, -1
    masks = [m] * 4
    thr = [np.array(v, np.float32) for v in (-1.0, -2.0, 5.0, -1.0)]
    fg = [np.array(v, np.int32) for v in (1, 1, 1, 0)]
    (out,) = run_op(lambda fn, m, t, f: fn.segmentation.random_mask_pixel(
        m, threshold=t, foreground=f), [masks, thr, fg], seed=4)
    assert out[0].tolist() == [2, 3]                    # > -1: only the 2
    assert out[1].tolist() in ([2, 3], [4, 1])          # > -2: the 2 or the -1


def test_uniform_over_foreground_and_over_everything():
    m = np.zeros((4, 5), np.uint8)
    m[0, 0] = m[3, 4] = m[1, 2] = 1
    (out,) = run_op(lambda fn, m: fn.segmentation.random_mask_pixel(m, foreground=1),
                    [[m] * 600], seed=1)
    counts = {}
    for o in out:
        counts[tuple(o)] = counts.get(tuple(o), 0) + 1
    assert set(counts) == {(0, 0), (3, 4), (1, 2)}
    assert all(150 < c < 250 for c in counts.values())
    (out,) = run_op(lambda fn, m: fn.segmentation.random_mask_pixel(m), [[m] * 2000], seed=2)
    flat = np.bincount([o[0] * 5 + o[1] for o in out], minlength=20)
    assert flat.min() > 60 and flat.max() < 150        # 100 expected for each pixel


def test_no_foreground_gives_any_pixel():
    m = np.zeros((3, 4), np.uint8)
    (out,) = run_op(lambda fn, m: fn.segmentation.random_mask_pixel(m, foreground=1),
                    [[m] * 200], seed=3)
    assert len({tuple(o) for o in out}) == 12


def test_same_seed_same_pixels_whatever_the_threads():
    rng = np.random.default_rng(9)
    masks = [rng.integers(0, 2, (200, 300), dtype=np.uint8) for _ in range(8)]
    outs = [run_op(lambda fn, m: fn.segmentation.random_mask_pixel(m, foreground=1), [masks],
                   seed=77, num_threads=t)[0] for t in (1, 3)]
    for a, b in zip(*outs, strict=True):
        np.testing.assert_array_equal(a, b)
    other = run_op(lambda fn, m: fn.segmentation.random_mask_pixel(m, foreground=1), [masks],
                   seed=78)[0]
    assert any((a != b).any() for a, b in zip(outs[0], other, strict=True))


def test_value_and_threshold_together():
    with pytest.raises(RuntimeError, match="random_mask_pixel: Arguments ``value`` and "
                                           "``threshold`` can not be provided together"):
        run_op(lambda fn, m: fn.segmentation.random_mask_pixel(m, value=1, threshold=0.5),
               [[np.zeros((2, 2), np.uint8)]])


def test_empty_mask():
    with pytest.raises(PipelineError, match="random_mask_pixel: cannot pick a pixel of an "
                                            "empty mask"):
        run_op(lambda fn, m: fn.segmentation.random_mask_pixel(m),
               [[np.zeros((0, 3), np.uint8)]])


@pytest.mark.oracle
def test_same_distribution_as_dali():
    """Different random streams, same support: every pixel DALI picks is one we can pick."""
    pytest.importorskip("nvidia.dali")
    m = np.zeros((5, 6, 1), np.uint8)
    m[1, 2], m[3, 5], m[4, 0] = 3, 1, 3

    def build(fn, m):
        return fn.segmentation.random_mask_pixel(m, foreground=1, value=3)

    ours = {tuple(o) for o in run_op(build, [[m] * 100])[0]}
    real = {tuple(o) for o in run_op(build, [[m] * 100], real=True)[0]}
    assert ours == real == {(1, 2, 0), (4, 0, 0)}


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.int64])
def test_kernel_picks_the_element_at_the_drawn_fraction(dtype):
    """Against NumPy on masks of many blocks: element floor(u * count) of the foreground."""
    rng = np.random.default_rng(3)
    masks = [rng.integers(0, 4, (150, 170)).astype(dtype) for _ in range(6)]
    storage = BatchStorage.from_arrays(masks)
    u = rng.random(6)
    value = np.array([2, 2, 2, 2.5, 2, 2])
    by_value = np.array([0, 1, 0, 1, 0, 1], bool)
    thr = np.array([0.5, 0, 2, 0, -1, 0])
    got = kernel.pick_batch(None, storage, np.ones(6, bool), by_value, value, thr, u)
    for m, ui, g, bv, v, t in zip(masks, u, got, by_value, value, thr, strict=True):
        fg = np.flatnonzero(m.ravel() == v if bv else m.ravel() > t)
        expected = fg[int(ui * len(fg))] if len(fg) else int(ui * m.size)
        assert g == expected
