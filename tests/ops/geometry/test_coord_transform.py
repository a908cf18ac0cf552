"""fn.coord_transform against a float32 NumPy reference, goldens and real DALI."""


import numpy as np
import pytest
import transforms_utils as tu
from golden_cases import case_indices, load_case

from dali import types
from dali._ext.kernels import coord_transform as kernel

GOLDEN = "coord_transform.npz"


def reference(x, m, t, dtype=np.float32):
    """`m @ x + t` per point in float32, products summed in column order, then t added;
    integers rounded half away from zero and saturated."""
    pts = x.reshape(-1, x.shape[-1]).astype(np.float32)
    m, t = np.float32(m), np.float32(t)
    acc = np.zeros((len(pts), m.shape[0]), np.float32)
    for c in range(m.shape[1]):
        acc = acc + m[:, c] * pts[:, c:c + 1]
    acc = acc + t
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        acc = np.clip(np.trunc(acc + np.copysign(np.float32(0.5), acc)), info.min, info.max)
    return acc.astype(dtype).reshape(x.shape[:-1] + (m.shape[0],))


@pytest.mark.parametrize("k", case_indices(GOLDEN))
def test_golden(k):
    _, args, _, batch, expected = load_case(GOLDEN, k, 3, ("dtype",))
    out, _ = tu.run(lambda fn, x: fn.coord_transform(x, **args), [batch])
    for o, e in zip(out, expected, strict=True):
        assert o.dtype == e.dtype and o.shape == e.shape
        np.testing.assert_array_equal(o, e)


@pytest.mark.parametrize("seed", range(8))
def test_random_per_sample_matrices(seed):
    rng = np.random.default_rng(seed)
    cols, rows = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    dtype = [np.float32, np.uint8, np.int16, np.uint16, np.int32][seed % 5]
    info = np.iinfo(dtype) if dtype != np.float32 else None
    lo, hi = (info.min, info.max) if info else (-100, 100)
    xs = [rng.uniform(lo, hi, size=(*rng.integers(0, 40, size=1 + seed % 3), cols)).astype(dtype)
          for _ in range(5)]
    ms = [rng.normal(size=(rows, cols)).astype(np.float32) for _ in range(5)]
    ts = [rng.normal(scale=10, size=rows).astype(np.float32) for _ in range(5)]
    out_type = dtype if seed % 2 else np.float32
    dali_type = types.to_dali_type(np.dtype(out_type))
    out, _ = tu.run(lambda fn, x, m, t: fn.coord_transform(x, M=m, T=t, dtype=dali_type),
                    [xs, ms, ts])
    for o, x, m, t in zip(out, xs, ms, ts, strict=True):
        np.testing.assert_array_equal(o, reference(x, m, t, out_type))


def test_kernel_threads_and_chunks():
    """Parts larger than a work item give the same result on several threads."""
    from dali._ext.thread_pool import ThreadPool
    rng = np.random.default_rng(1)
    src = rng.integers(0, 256, size=(50000, 3)).astype(np.uint8)
    mats = rng.normal(size=(2, 2, 4)).astype(np.float32)
    points = [30000, 20000]
    dst = np.empty((50000, 2), np.uint8)
    kernel.transform_batch(ThreadPool(3), src, dst, mats, points)
    np.testing.assert_array_equal(dst[:30000], reference(src[:30000], mats[0, :, :3],
                                                         mats[0, :, 3], np.uint8))
    np.testing.assert_array_equal(dst[30000:], reference(src[30000:], mats[1, :, :3],
                                                         mats[1, :, 3], np.uint8))


def test_scalar_m_and_t_and_mt():
    x = [np.float32([[1, 2], [3, 4]])] * 2
    out, layout = tu.run(lambda fn, p: fn.coord_transform(p, M=2.0, T=1.0), [x], ["NX"])
    assert layout == "NX"
    np.testing.assert_array_equal(out[0], x[0] * 2 + 1)
    out, _ = tu.run(lambda fn, p: fn.coord_transform(p, MT=-1.0), [x])
    np.testing.assert_array_equal(out[0], -x[0])
    out, _ = tu.run(lambda fn, p: fn.coord_transform(p), [x])
    np.testing.assert_array_equal(out[0], x[0])


def test_matrices_from_transforms():
    x = [np.float32([[1, 2], [3, 4], [5, 6]])] * 2
    out, _ = tu.run(lambda fn, p: fn.coord_transform(
        p, MT=fn.transforms.rotation(angle=90, center=[1, 1])), [x])
    np.testing.assert_allclose(out[0], [[0, 1], [-2, 3], [-4, 5]], atol=1e-5)


def test_per_frame_matrices():
    seq = [np.float32(np.arange(12).reshape(2, 3, 2))] * 2
    mts = [np.float32([[[1, 0, 1], [0, 1, 1]], [[2, 0, 0], [0, 2, 0]]]),
           np.float32([[[1, 0, 1], [0, 1, 1]]])]
    out, layout = tu.run(lambda fn, x, m: fn.coord_transform(x, MT=fn.per_frame(m)),
                         [seq, mts], ["F**"])
    assert layout == "F**"
    np.testing.assert_array_equal(out[0][0], seq[0][0] + 1)
    np.testing.assert_array_equal(out[0][1], seq[0][1] * 2)
    np.testing.assert_array_equal(out[1], seq[1] + 1)
    # a plain input is repeated once per frame
    pts = [np.float32([[1, 2], [3, 4]])] * 2
    out, _ = tu.run(lambda fn, x, m: fn.coord_transform(x, MT=fn.per_frame(m)), [pts, mts])
    assert out[0].shape == (2, 2, 2) and out[1].shape == (1, 2, 2)
    np.testing.assert_array_equal(out[0][1], pts[0] * 2)


@pytest.mark.parametrize("kwargs, x, message", [
    ({"MT": [1, 2, 3, 4, 5, 6], "M": [1, 0, 0, 1]}, np.zeros((2, 2), np.float32),
     "The combined ``MT`` argument cannot be used together with separate ``M``, ``T``"),
    ({"M": [1, 2, 3]}, np.zeros((2, 2), np.float32),
     "Cannot form a matrix with 3 elements and 2columns"),
    ({"MT": [1, 2, 3, 4]}, np.zeros((2, 2), np.float32),
     "Cannot form a matrix with 4 elements and 3columns"),
    ({"M": [1, 2, 3, 4, 5, 6], "T": [1, 2, 3]}, np.zeros((2, 3), np.float32),
     'Argument "T" expects either a single value or a list of 2 elements. 3 given.'),
    ({"dtype": types.UINT8}, np.zeros((2, 2), np.float32),
     "output type must be the same as input type, which is float, or `float`. Got: uint8"),
    ({}, np.zeros((2, 2), np.float64), "Unsupported input type: double"),
    ({}, np.zeros((2, 2), np.int8), "Unsupported input type: int8"),
    ({}, np.zeros(4, np.float32), "expects an input with at least 2 dimensions"),
])
def test_errors(kwargs, x, message):
    with pytest.raises(RuntimeError, match="coord_transform") as e:
        tu.run(lambda fn, p: fn.coord_transform(p, **kwargs), [[x, x]])
    assert message in str(e.value)


@pytest.mark.oracle
def test_oracle_argument_inputs():
    rng = np.random.default_rng(2)
    xs = [rng.normal(size=(n, 3)).astype(np.float32) for n in (4, 9, 1)]
    ms = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    ts = [rng.normal(size=2).astype(np.float32) for _ in range(3)]
    tu.assert_same_as_dali(lambda fn, x, m, t: fn.coord_transform(x, M=m, T=t), [xs, ms, ts])
