"""fn.random_resized_crop: crop windows (statistics, DALI's fallbacks), determinism, thread
independence, and equality with fn.resize of the chosen window."""

import math

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import fn, pipeline_def, types
from dali._executor.errors import PipelineError
from dali.ops import _random_window
from dali.ops._random_window import crop_window

RNG = np.random.default_rng(21)
NN = types.DALIInterpType.INTERP_NN


def _coords(h, w):
    """A float image whose pixels hold their own (y, x)."""
    yy, xx = np.mgrid[0:h, 0:w]
    return np.stack([yy, xx], -1).astype(np.float32)


def _windows(outs):
    """(y, x, h, w) of each crop, read back from nearest-neighbour upscaled coordinates."""
    res = []
    for a in outs:
        y0, y1 = int(a[..., 0].min()), int(a[..., 0].max())
        x0, x1 = int(a[..., 1].min()), int(a[..., 1].max())
        res.append((y0, x0, y1 - y0 + 1, x1 - x0 + 1))
    return res


def _crop_windows(shapes, seed=42, real=False, num_threads=1, **kwargs):
    imgs = [_coords(*s) for s in shapes]
    interp = _real_nn() if real else NN
    outs = run_op(lambda fn, x: fn.random_resized_crop(x, size=[256, 256], interp_type=interp,
                                                       seed=seed, **kwargs),
                  [imgs], layouts=["HWC"], real=real, num_threads=num_threads)[0]
    return _windows(outs)


def _real_nn():
    real_types = pytest.importorskip("nvidia.dali.types")
    return real_types.INTERP_NN


def test_window_statistics():
    shape = (48, 64)
    windows = np.array(_crop_windows([shape] * 256, seed=3))
    area = windows[:, 2] * windows[:, 3] / (48 * 64)
    aspect = windows[:, 3] / windows[:, 2]
    assert (windows[:, 0] >= 0).all() and (windows[:, 1] >= 0).all()
    assert (windows[:, 0] + windows[:, 2] <= 48).all()
    assert (windows[:, 1] + windows[:, 3] <= 64).all()
    # every window came from an attempt (a fallback would be 48 x 64): area and rounded aspect
    # ratio in range (the area up to rounding of the sides)
    assert (area >= 0.08 * 0.9).all() and (area <= 1).all()
    assert (aspect >= 3 / 4 - 1e-6).all() and (aspect <= 4 / 3 + 1e-6).all()
    # area uniform on [0.08, 1] (minus the rejected draws), log aspect ratio symmetric
    assert 0.35 < area.mean() < 0.55
    assert abs(np.log(aspect).mean()) < 0.05
    assert 0.1 < np.log(aspect).std() < 0.2
    # positions uniform over the free range
    free = np.maximum(1, np.array([48, 64]) - windows[:, 2:4])
    assert 0.4 < (windows[:, :2] / free).mean() < 0.6


@pytest.mark.parametrize("shape, area, aspect, expected_hw", [
    ((40, 60), [1.5, 2.0], [3 / 4, 4 / 3], (40, 53)),     # too large: widest window
    ((40, 60), [1.0, 1.0], [2, 3], (30, 60)),              # too tall: tallest window
    ((40, 60), [0.31, 0.31], [2, 2], (19, 38)),            # every attempt fails: fallback
    ((40, 60), [0.31, 0.31], [0.5, 0.5], (38, 19)),
    ((40, 60), [0.31, 0.31], [1.5, 1.5], (22, 33)),        # every attempt succeeds
    ((1, 50), [0.08, 1.0], [3 / 4, 4 / 3], (1, 1)),
])
def test_deterministic_windows(shape, area, aspect, expected_hw):
    # The sizes real DALI chooses in these cases (they do not depend on the random numbers).
    for draws in (np.full(22, 0.5), RNG.random(22)):
        y, x, h, w = crop_window(*shape, draws, area, aspect, 10)
        assert (h, w) == expected_hw
        assert 0 <= y <= shape[0] - h and 0 <= x <= shape[1] - w


@pytest.mark.oracle
@pytest.mark.parametrize("area, aspect", [
    ([1.5, 2.0], [3 / 4, 4 / 3]), ([1.0, 1.0], [2, 3]), ([0.31, 0.31], [2, 2]),
    ([0.31, 0.31], [0.5, 0.5]), ([0.3, 0.3], [2, 2])])
def test_deterministic_windows_match_dali(area, aspect):
    kw = {"random_area": area, "random_aspect_ratio": aspect}
    ours = _crop_windows([(40, 60)] * 3, **kw)
    real = _crop_windows([(40, 60)] * 3, real=True, **kw)
    assert [w[2:] for w in ours] == [w[2:] for w in real]


def _attempts_reference(height, width, draws, area, aspect, attempts, fallback):
    """(y, x, h, w) of one image whose attempts may succeed, attempt by attempt in float32
    scalars (the aspect ratios from one NumPy exp over the batch, as the operator takes them)."""
    f32 = np.float32
    ratio = np.exp(np.log(f32(aspect[0])) + draws[1:2 * attempts:2].astype(f32)
                   * (np.log(f32(aspect[1])) - np.log(f32(aspect[0]))))
    h, w = fallback
    for k in range(attempts):
        target = (f32(area[0]) + f32(draws[2 * k]) * (f32(area[1]) - f32(area[0]))) \
            * f32(height * width)
        aw = max(1, math.floor(float(np.sqrt(target * ratio[k])) + 0.5))
        ah = max(1, math.floor(float(np.sqrt(target / ratio[k])) + 0.5))
        if aw <= width and ah <= height and \
                f32(aspect[0]) <= f32(aw) / f32(ah) <= f32(aspect[1]):
            h, w = ah, aw
            break
    y = min(int(draws[-2] * (height - h + 1)), height - h)
    return y, min(int(draws[-1] * (width - w + 1)), width - w), h, w


def test_batch_windows_equal_a_sample_by_sample_reference():
    """The batch kernel (random_window.pyx) against the attempts taken one by one, for images
    whose attempts may succeed (the others take the fallback, as a zero-attempt draw does)."""
    rng = np.random.default_rng(17)
    for t in range(60):
        n, attempts = int(rng.integers(1, 40)), int(rng.integers(0, 12))
        heights = rng.integers(1, [6, 60, 2000][t % 3], n)
        widths = rng.integers(1, [6, 60, 2000][(t // 3) % 3], n)
        lo = float(rng.uniform(0, 1))
        area = [lo, float(rng.uniform(lo, 1.2))]
        lo = float(rng.uniform(0.2, 2))
        aspect = [lo, float(rng.uniform(lo, 3))]
        draws = rng.random((n, 2 * attempts + 2))
        got = _random_window.crop_windows(heights, widths, draws, area, aspect, attempts)
        for i in range(n):
            h, w = int(heights[i]), int(widths[i])
            fallback = crop_window(h, w, draws[i, -2:], area, aspect, 0)
            want = _attempts_reference(h, w, draws[i], area, aspect, attempts, fallback[2:]) \
                if _attempts_count(h, w, area, aspect) else fallback
            assert tuple(got[i]) == want, (t, i)


def _attempts_count(height, width, area, aspect):
    """Whether the widest and the tallest window reach the smallest area (DALI's test)."""
    f32 = np.float32
    least = f32(width) * f32(height) * f32(area[0])
    widest = max(1, int(f32(height) * f32(aspect[1])))
    tallest = max(1, int(f32(width) * (f32(1) / f32(aspect[0]))))
    return not (f32(height * widest) < least or f32(width * tallest) < least)


def test_no_attempts_falls_back():
    y, x, h, w = crop_window(40, 60, [0.0, 0.0], [0.08, 1.0], [3 / 4, 4 / 3], 0)
    assert (h, w) == (40, 53) and (y, x) == (0, 0)


def test_deterministic_for_a_seed_and_independent_of_threads():
    shapes = [(30, 40), (50, 20), (33, 33), (64, 48)]
    a = _crop_windows(shapes, seed=9)
    assert _crop_windows(shapes, seed=9) == a
    assert _crop_windows(shapes, seed=9, num_threads=2) == a
    assert _crop_windows(shapes, seed=10) != a


def test_windows_depend_on_the_sample_not_the_batch():
    imgs = [_coords(40, 60)] * 4

    def build(fn, x):
        return fn.random_resized_crop(x, size=[256, 256], interp_type=NN, seed=5)

    whole = _windows(run_op(build, [imgs], layouts=["HWC"])[0])
    halves = run_op(build, [[imgs[:2]], [imgs[2:]]], layouts=["HWC"], iterations=2,
                    batch_size=2)
    assert _windows(halves[0][0]) + _windows(halves[1][0]) == whole


@pytest.mark.parametrize("kwargs", [{}, {"interp_type": types.INTERP_CUBIC},
                                    {"antialias": False, "dtype": types.FLOAT}])
def test_output_is_resize_of_the_window(kwargs):
    shapes = [(40, 60), (37, 53), (64, 48), (20, 90)]
    imgs = [RNG.integers(0, 256, (*s, 3), dtype=np.uint8) for s in shapes]
    windows = _crop_windows(shapes, seed=7)
    outs = run_op(lambda fn, x: fn.random_resized_crop(x, size=[24, 30], seed=7, **kwargs),
                  [imgs], layouts=["HWC"])[0]
    for img, (y, x, h, w), out in zip(imgs, windows, outs, strict=True):
        (ref,) = run_op(lambda fn, t, y=y, x=x, h=h, w=w: fn.resize(
            t, size=[24, 30], roi_start=[y, x], roi_end=[y + h, x + w], **kwargs),
            [[img]], layouts=["HWC"])[0]
        assert out.shape == (24, 30, 3) and out.dtype == ref.dtype
        np.testing.assert_array_equal(out, ref)


def test_sequences_share_the_window_and_planar_layouts():
    seq = np.stack([_coords(40, 60)] * 3)
    (out,) = run_op(lambda fn, x: fn.random_resized_crop(x, size=[256, 256], interp_type=NN,
                                                         seed=3), [[seq]], layouts=["FHWC"])[0]
    assert out.shape == (3, 256, 256, 2)
    assert len(set(_windows(list(out)))) == 1
    chw = np.ascontiguousarray(_coords(40, 60).transpose(2, 0, 1))
    (planar,) = run_op(lambda fn, x: fn.random_resized_crop(x, size=[256, 256], interp_type=NN,
                                                            seed=3), [[chw]], layouts=["CHW"])[0]
    assert _windows([planar.transpose(1, 2, 0)]) == _windows([out[0]])


def test_square_size_and_empty_output():
    img = RNG.integers(0, 256, (20, 30, 3), dtype=np.uint8)
    (out,) = run_op(lambda fn, x: fn.random_resized_crop(x, size=12), [[img]],
                    layouts=["HWC"])[0]
    assert out.shape == (12, 12, 3)
    (empty,) = run_op(lambda fn, x: fn.random_resized_crop(x, size=[0, 10]), [[img]],
                      layouts=["HWC"])[0]
    assert empty.shape == (0, 10, 3)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"size": [1, 2, 3]}, RuntimeError, r"(?s)random_resized_crop.*`size`.*3 values"),
    ({"size": [8, 8], "random_area": [0.5, 0.1]}, RuntimeError, "`random_area`: empty range"),
    ({"size": [8, 8], "random_aspect_ratio": [2, 1]}, RuntimeError,
     "`random_aspect_ratio`: empty range"),
    ({"size": [8, 8], "random_aspect_ratio": [0, 1]}, ValueError, "must be positive"),
    ({"size": [-5, 8]}, PipelineError, "`size` must not be negative"),
    ({"size": [8, 8], "dtype": types.INT32}, PipelineError, "argument `dtype`"),
])
def test_argument_errors(kwargs, exc, match):
    # Like DALI: size and ranges are checked when the pipeline is built, the rest when it runs.
    img = np.zeros((10, 10, 3), np.uint8)
    with pytest.raises(exc, match=match) as e:
        run_op(lambda fn, x: fn.random_resized_crop(x, **kwargs), [[img]], layouts=["HWC"])
    assert isinstance(e.value, PipelineError) == (exc is PipelineError)


def test_missing_size_and_bad_inputs():
    img = np.zeros((10, 10, 3), np.uint8)
    with pytest.raises(RuntimeError, match='"size"'):
        run_op(lambda fn, x: fn.random_resized_crop(x), [[img]], layouts=["HWC"])
    with pytest.raises(PipelineError, match=r'layout "DHWC" is not supported'):
        run_op(lambda fn, x: fn.random_resized_crop(x, size=4),
               [[np.zeros((2, 4, 4, 3), np.uint8)]], layouts=["DHWC"])
    with pytest.raises(PipelineError, match="cannot crop an image of shape") as e:
        run_op(lambda fn, x: fn.random_resized_crop(x, size=4),
               [[img, np.zeros((0, 4, 3), np.uint8)]], layouts=["HWC"])
    assert e.value.sample == 1


def test_windows_are_drawn_once_per_batch(monkeypatch):
    # Fused behind fn.resize, the producer asks for the input regions (which need the windows)
    # before the operator runs: a batch's windows are drawn once all the same, and the outputs
    # are those of the unfused pipeline.
    drawn = {}                     # the operator's window policy -> sample ids of each draw
    windows = _random_window.WindowPolicy.windows

    def counted(self, ws, heights, widths):
        drawn.setdefault(self, []).append(tuple(ws.sample_ids))
        return windows(self, ws, heights, widths)

    monkeypatch.setattr(_random_window.WindowPolicy, "windows", counted)
    imgs = [RNG.integers(0, 256, (30 + 3 * i, 40 - i, 3), dtype=np.uint8) for i in range(5)]

    @pipeline_def(batch_size=5, num_threads=2, device_id=None, seed=7)
    def pipe():
        x = fn.external_source(source=lambda: imgs, layout="HWC")
        return fn.random_resized_crop(fn.resize(x, size=[50, 60]), size=[20, 24])

    outs = {}
    for fuse in (True, False):
        p = pipe()
        p._fuse_regions = fuse
        p.build()
        outs[fuse] = [[np.array(t) for t in p.run()[0]] for _ in range(3)]
    assert len(drawn) == 2
    for ids in drawn.values():     # one draw per batch (prefetching may have started more)
        assert len(set(ids)) == len(ids) >= 3
    assert [o.shape for o in outs[True][0]] == [(20, 24, 3)] * 5
    for a, b in zip(outs[True], outs[False], strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    # the next batch (new sample ids) has new windows
    assert any(not np.array_equal(a, b) for a, b in zip(*outs[True][:2], strict=True))


def test_output_shapes_follow_the_input_shapes_from_batch_to_batch():
    """The output shapes remembered for the last batch of input shapes change with them."""
    rng = np.random.default_rng(5)
    rgb = [rng.integers(0, 256, (9, 7, 3), dtype=np.uint8) for _ in range(2)]
    gray = [rng.integers(0, 256, (6, 11, 1), dtype=np.uint8) for _ in range(2)]
    runs = run_op(lambda fn, x: fn.random_resized_crop(x, size=(4, 5), seed=3),
                  [[rgb], [gray], [rgb]], layouts=["HWC"], iterations=3)
    assert [[o.shape for o in out] for (out,) in runs] == \
        [[(4, 5, 3)] * 2, [(4, 5, 1)] * 2, [(4, 5, 3)] * 2]
    for (out,), batch in zip(runs, (rgb, gray, rgb), strict=True):
        for o, x in zip(out, batch, strict=True):     # a resampled crop stays within the input
            assert x.min() <= o.min() and o.max() <= x.max()
