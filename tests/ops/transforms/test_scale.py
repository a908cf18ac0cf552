"""fn.transforms.scale against a NumPy reference, goldens and real DALI."""

import numpy as np
import pytest
import transforms_utils as tu

import dali


def reference(scale, center=None):
    scale = np.asarray(scale, np.float64)
    center = np.zeros_like(scale) if center is None else np.asarray(center, np.float64)
    return tu.affine(np.diag(scale), center - scale * center)


@pytest.mark.parametrize("k", tu.golden_cases("scale"))
def test_golden(k):
    tu.check_golden(k)


@pytest.mark.parametrize("seed", range(6))
def test_random_scale_and_center(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    scales = [rng.uniform(-3, 3, size=n).astype(np.float32) for _ in range(3)]
    centers = [rng.normal(size=n).astype(np.float32) for _ in range(3)]
    out, _ = tu.run(lambda fn, s, c: fn.transforms.scale(scale=s, center=c), [scales, centers])
    for o, s, c in zip(out, scales, centers, strict=True):
        assert o.dtype == np.float32 and o.shape == (n, n + 1)
        np.testing.assert_allclose(o, reference(s, c), rtol=1e-5, atol=1e-6)


def test_ndim_of_a_single_scale():
    """One value: the input's dimensions, else `ndim`, else 1-D; longer vectors win."""
    out, _ = tu.run(lambda fn: fn.transforms.scale(scale=2.0))
    np.testing.assert_array_equal(out[0], reference([2.0]))
    out, _ = tu.run(lambda fn: fn.transforms.scale(scale=[2.0], ndim=3))
    np.testing.assert_array_equal(out[0], reference([2.0] * 3))
    out, _ = tu.run(lambda fn: fn.transforms.scale(scale=[2.0, 3.0], ndim=3))
    np.testing.assert_array_equal(out[0], reference([2.0, 3.0]))
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    out, _ = tu.run(lambda fn, x: fn.transforms.scale(x, scale=0.5, ndim=2), [[m] * 2])
    np.testing.assert_allclose(out[1], tu.compose(reference([0.5] * 3), m))


@pytest.mark.parametrize("reverse", [False, True])
def test_with_input(reverse):
    rng = np.random.default_rng(1)
    mats = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    out, _ = tu.run(lambda fn, m: fn.transforms.scale(m, scale=[2, -1], center=[3, 4],
                                                      reverse_order=reverse), [mats])
    for o, m in zip(out, mats, strict=True):
        np.testing.assert_allclose(o, tu.compose(reference([2, -1], [3, 4]), m, reverse),
                                   rtol=1e-5, atol=1e-6)


def test_per_frame_scale_and_center():
    scales = [np.float32([[1, 2], [3, 4], [5, 6]]), np.float32([[2, 2]])]
    centers = [np.float32([[1, 1]]), np.float32([[0, 1], [2, 3]])]
    out, layout = tu.run(lambda fn, s, c: fn.transforms.scale(scale=fn.per_frame(s),
                                                              center=fn.per_frame(c)),
                         [scales, centers[:1] * 2])
    assert layout == "F**" and out[0].shape == (3, 2, 3) and out[1].shape == (1, 2, 3)
    np.testing.assert_allclose(out[0][2], reference([5, 6], [1, 1]))
    with pytest.raises(RuntimeError, match="has 2 frames but the sample has 3"):
        tu.run(lambda fn, s, c: fn.transforms.scale(scale=fn.per_frame(s),
                                                   center=fn.per_frame(c)),
               [scales, centers[::-1]])


def test_center_size_must_match():
    with pytest.raises(RuntimeError, match='transforms.scale: Argument "center" expected '
                                           'shape 1 but got 2 values'):
        tu.run(lambda fn: fn.transforms.scale(scale=[2], center=[1, 2]))


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(3))
def test_oracle(seed):
    rng = np.random.default_rng(seed)
    mats = [rng.normal(size=(3, 4)).astype(np.float32) for _ in range(2)]
    scale, center = rng.normal(size=3).tolist(), rng.normal(size=3).tolist()
    tu.assert_same_as_dali(lambda fn, m: fn.transforms.scale(
        m, scale=scale, center=center, reverse_order=bool(seed % 2)), [mats])


def test_an_empty_branch_with_input_transforms_runs():
    """A conditional branch that no sample takes gives the transforms an empty batch of
    input matrices: they produce an empty batch (the other branch's values are DALI's)."""
    values = [np.array(float(i), np.float32) for i in range(4)]

    @dali.pipeline_def(batch_size=4, num_threads=1, device_id=None, enable_conditionals=True)
    def pipe():
        v = dali.fn.external_source(source=lambda: values)
        m = dali.fn.transforms.translation(offset=[1.0, 2.0])
        if v > 10:
            out = dali.fn.transforms.scale(m, scale=[2.0, 3.0])
        else:
            out = dali.fn.transforms.shear(m, shear=[0.5, 0.25])
        return out

    p = pipe()
    p.build()
    (out,) = p.run()
    for m in out:
        np.testing.assert_allclose(np.array(m), [[1.0, 0.5, 2.0], [0.25, 1.0, 2.25]])
