"""fn.transforms.shear against a NumPy reference, goldens and real DALI."""

import math

import numpy as np
import pytest
import transforms_utils as tu


def reference(factors, center=None):
    n = 2 if len(factors) == 2 else 3
    a = np.eye(n)
    k = 0
    for i in range(n):
        for j in range(n):
            if i != j:
                a[i, j] = factors[k]
                k += 1
    c = np.zeros(n) if center is None else np.asarray(center, np.float64)
    return tu.affine(a, c - a @ c)


@pytest.mark.parametrize("k", tu.golden_cases("shear"))
def test_golden(k):
    tu.check_golden(k)


@pytest.mark.parametrize("seed", range(6))
def test_random_factors_and_angles(seed):
    rng = np.random.default_rng(seed)
    n = 2 if seed % 2 else 3
    center = rng.normal(size=n).tolist()
    values = [rng.uniform(-60, 60, size=n * (n - 1)).astype(np.float32) for _ in range(3)]
    arg = "angles" if seed < 3 else "shear"
    out, _ = tu.run(lambda fn, v: fn.transforms.shear(**{arg: v}, center=center), [values])
    for o, v in zip(out, values, strict=True):
        factors = [math.tan(math.radians(a)) for a in v] if arg == "angles" else v
        np.testing.assert_allclose(o, reference(factors, center), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kwargs, message", [
    ({}, "One and only one of the following arguments is expected: ``shear`` or ``angles``"),
    ({"shear": [1, 2], "angles": [1, 2]}, "One and only one of the following arguments"),
    ({"shear": [1, 2, 3]}, "Shear matrix must have D*(D-1) elements"),
    ({"shear": [1, 2], "center": [1, 2, 3]}, 'Argument "center" expected shape 2'),
    ({"angles": [1] * 6, "center": [1, 2]}, 'Argument "center" expected shape 3'),
])
def test_errors(kwargs, message):
    with pytest.raises(RuntimeError, match="transforms.shear") as e:
        tu.run(lambda fn: fn.transforms.shear(**kwargs))
    assert message in str(e.value)


@pytest.mark.oracle
def test_oracle_with_input():
    rng = np.random.default_rng(4)
    mats = [rng.normal(size=(3, 4)).astype(np.float32) for _ in range(3)]
    tu.assert_same_as_dali(lambda fn, m: fn.transforms.shear(
        m, shear=[0.1, -0.2, 0.3, 0.4, -0.5, 0.6], center=[1, 2, 3], reverse_order=True),
        [mats])
