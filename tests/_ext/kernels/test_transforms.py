"""The product kernel of fn.transforms.* against an exact statement of its arithmetic (every
product element: the terms in order, accumulated from zero by correctly rounded fused
multiply-adds, computed with Fractions) and against NumPy's matmul where values are not
finite; its factor forms and its argument checks."""

from fractions import Fraction

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage

from dali._ext.kernels import transforms


def homogeneous(m):
    """A float32 (n, n+1) or float64 (n+1, n+1) matrix as a float64 (n+1, n+1) one."""
    m = np.asarray(m, np.float64)
    if m.shape[0] == m.shape[1]:
        return m
    return np.vstack([m, np.eye(m.shape[1])[-1]])


def fma_product(a, b):
    """a @ b, each element `fma(a[i, n], b[n, j], ... fma(a[i, 0], b[0, j], 0.0))` exactly."""
    out = np.zeros((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s = float(Fraction(a[i, k]) * Fraction(b[k, j]) + Fraction(s))
            out[i, j] = s
    return out


def reference(factors, reverse, product=fma_product):
    """The top rows of F0, then Fi @ acc (or acc @ Fi), for one part, as float32."""
    acc = homogeneous(factors[0])
    for f in factors[1:]:
        h = homogeneous(f)
        acc = product(acc, h) if reverse else product(h, acc)
    return acc[:-1].astype(np.float32)


def compose(factors, n, parts, reverse):
    out = BatchStorage.allocate(np.float32, [(n, n + 1)] * parts)
    transforms.compose_batch(out, factors, n, reverse)
    return np.asarray(out.flat()).reshape(parts, n, n + 1)


def part(factor, p):
    if isinstance(factor, BatchStorage):
        return factor.samples()[p]
    return factor[p if len(factor) > 1 else 0]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("n", range(1, 7))
def test_products_of_every_factor_form(n, reverse):
    rng = np.random.default_rng(n)
    parts = 5
    inputs = [rng.normal(size=(n, n + 1)).astype(np.float32) for _ in range(parts)]
    inputs[1][0, 0] = 0.0                                      # exact zeros and small integers
    inputs[2] = np.round(inputs[2] * 4).astype(np.float32)
    factors = [
        BatchStorage.from_arrays(inputs),                      # contiguous batch
        homogeneous(rng.normal(size=(n, n + 1)))[None],        # one float64 for every part
        BatchStorage.from_samples([i[::-1].copy() for i in inputs]),      # per-sample batch
        np.stack([homogeneous(rng.normal(size=(n, n + 1))) for _ in range(parts)]),
        rng.normal(size=(parts, n, n + 1)).astype(np.float32),
    ]
    for count in (1, 2, 3, 5):
        out = compose(factors[:count], n, parts, reverse)
        for p in range(parts):
            expected = reference([part(f, p) for f in factors[:count]], reverse)
            assert out[p].tobytes() == expected.tobytes(), (count, p)


@pytest.mark.parametrize("reverse", [False, True])
def test_infinities_and_nans_spread_as_in_homogeneous_products(reverse):
    t = np.array([[[1, np.inf, 2], [0, 1, 3]], [[np.nan, 0, 1], [0, 1, -np.inf]]], np.float32)
    m = np.array([[[2.0, 0.0, 1.0], [0.0, 0.5, -1.0], [0.0, 0.0, 1.0]]])
    out = compose([BatchStorage.from_arrays(list(t)), m], 2, 2, reverse)
    with np.errstate(invalid="ignore"):
        expected = [reference([t[p], m[0]], reverse, product=np.matmul) for p in range(2)]
    np.testing.assert_array_equal(out, expected)     # equal NaN positions, equal values
    assert np.isnan(out).any() and np.isinf(out).any()


def test_an_empty_batch():
    out = BatchStorage.allocate(np.float32, [], ndim=2)
    transforms.compose_batch(out, [BatchStorage.allocate(np.float32, [], ndim=2)], 2, False)
    assert out.samples() == [] and out.shapes.shape == (0, 2)


@pytest.mark.parametrize("factor, message", [
    (BatchStorage.from_arrays([np.zeros((2, 3), np.float64)] * 3), "float32 matrices"),
    (BatchStorage.from_arrays([np.zeros((2, 3), np.float32)] * 2), "float32 matrices"),
    (BatchStorage.from_arrays([np.zeros((3, 4), np.float32)] * 3), "12 elements"),
    (np.zeros((3, 2, 3), np.float64), "float32 \\(3, 2, 3\\) or float64"),
    (np.zeros((2, 3, 3)), "float32 \\(3, 2, 3\\) or float64"),
    (np.zeros((3, 3, 2), np.float32).transpose(0, 2, 1), "C-contiguous"),
])
def test_factors_are_checked(factor, message):
    out = BatchStorage.allocate(np.float32, [(2, 3)] * 3)
    with pytest.raises(ValueError, match=message):
        transforms.compose_batch(out, [factor], 2, False)


def test_output_and_dimensions_are_checked():
    m = np.eye(3)[None]
    with pytest.raises(ValueError, match="contiguous float32"):
        transforms.compose_batch(BatchStorage.allocate(np.float64, [(2, 3)]), [m], 2, False)
    with pytest.raises(ValueError, match="1 to 6 dimensions"):
        transforms.compose_batch(BatchStorage.allocate(np.float32, [(7, 8)]), [m], 7, False)
    with pytest.raises(ValueError, match="1 to 6 dimensions and a factor"):
        transforms.compose_batch(BatchStorage.allocate(np.float32, [(2, 3)]), [], 2, False)
