"""fn.random_crop_generator: random windows (area, aspect ratio) of the given image shapes."""

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import fn, pipeline_def
from dali._executor.errors import PipelineError


def run(shapes, seed=1, num_threads=1, **kwargs):
    anchor, shape = run_op(lambda fn, s: tuple(fn.random_crop_generator(s, **kwargs)),
                           [shapes], seed=seed, num_threads=num_threads)
    return np.stack(anchor), np.stack(shape)


@pytest.mark.parametrize("seed", range(6))
def test_windows_fit_and_follow_the_ranges(seed):
    rng = np.random.default_rng(seed)
    dims = rng.integers(20, 400, (64, 2))
    shapes = [np.array([h, w, 3] if seed % 2 else [h, w], [np.int32, np.int64][seed % 2])
              for h, w in dims]
    area, ratio = (0.2, 0.9), (0.6, 1.5)
    anchor, shape = run(shapes, seed=seed, random_area=list(area),
                        random_aspect_ratio=list(ratio))
    assert anchor.dtype == shape.dtype == np.int32
    assert (anchor >= 0).all() and (shape >= 1).all() and (anchor + shape <= dims).all()
    frac = shape.prod(1) / dims.prod(1)
    aspect = shape[:, 1] / shape[:, 0]
    ok = (frac > area[0] * 0.8) & (frac < area[1] * 1.2) & (aspect > ratio[0] * 0.8) & \
        (aspect < ratio[1] * 1.2)
    assert ok.mean() > 0.9                   # the rest: the fallback (whole image, narrowed)


def test_whole_image_and_determinism():
    shapes = [np.array([40, 40], np.int32), np.array([30, 30, 1], np.int32)]
    anchor, shape = run(shapes, random_area=[1.0, 1.0], random_aspect_ratio=[1.0, 1.0])
    assert anchor.tolist() == [[0, 0], [0, 0]] and shape.tolist() == [[40, 40], [30, 30]]
    shapes = [np.array([300, 500], np.int32)] * 16
    a = run(shapes, seed=3, num_threads=1)
    b = run(shapes, seed=3, num_threads=3)
    c = run(shapes, seed=4)
    assert all((x == y).all() for x, y in zip(a, b, strict=True))
    assert any((x != y).any() for x, y in zip(a, c, strict=True))


@pytest.mark.parametrize("shape, message", [
    (np.array([100.0, 200.0], np.float32), "Only integer types are supported. Got: float"),
    (np.array([100, 200, 3, 4], np.int64), "Expected a 1D tensor with 2 or 3 values"),
    (np.array([[100, 200]], np.int64), "Expected a 1D tensor with 2 or 3 values"),
])
def test_bad_shapes(shape, message):
    with pytest.raises(PipelineError, match=f"random_crop_generator: {message}"):
        run([shape])


@pytest.mark.oracle
def test_whole_image_like_dali():
    pytest.importorskip("nvidia.dali")
    shapes = [np.array([40, 60, 3], np.int64), np.array([64, 64, 3], np.int64)]

    def build(fn, s):
        return tuple(fn.random_crop_generator(s, random_area=[1.0, 1.0],
                                              random_aspect_ratio=[1.0, 1.0]))

    (a_ours, s_ours), (a_real, s_real) = run_op(build, [shapes]), run_op(build, [shapes],
                                                                        real=True)
    assert s_ours[0].dtype == s_real[0].dtype == a_ours[0].dtype == a_real[0].dtype
    assert [s.tolist() for s in s_ours] == [s.tolist() for s in s_real] == [[40, 40], [64, 64]]
    assert a_ours[1].tolist() == a_real[1].tolist() == [0, 0]   # the 40 x 40 slides along x
    assert a_ours[0][0] == a_real[0][0] == 0 and 0 <= a_ours[0][1] <= 20


def test_empty_branch_batch():
    """A conditional branch that no sample takes runs the operator on an empty batch."""
    @pipeline_def(batch_size=3, num_threads=1, device_id=None, enable_conditionals=True,
                  seed=3, exec_async=False, exec_pipelined=False)
    def pipe():
        g = fn.external_source(source=lambda: [np.array(0, np.int32)] * 3)
        s = fn.external_source(source=lambda: [np.array([20, 30, 3], np.int64)] * 3)
        if g > 0:
            anchor, shape = fn.random_crop_generator(s)
        else:
            anchor, shape = fn.random_crop_generator(s, random_area=[1.0, 1.0],
                                                     random_aspect_ratio=[1.5, 1.5])
        return anchor, shape

    p = pipe()
    p.build()
    anchor, shape = (np.array([np.asarray(t) for t in tl]) for tl in p.run())
    assert shape.tolist() == [[20, 30]] * 3 and anchor.tolist() == [[0, 0]] * 3
