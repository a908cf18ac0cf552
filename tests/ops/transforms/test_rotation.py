"""fn.transforms.rotation against a NumPy reference (SciPy-free Rodrigues), goldens and DALI."""

import math

import numpy as np
import pytest
import transforms_utils as tu


def rotation_2d(angle):
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return np.array([[c, -s], [s, c]])


def rotation_3d(angle, axis):
    """Rotation about `axis` as a product of basis changes: independent of Rodrigues."""
    u = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    helper = np.eye(3)[np.argmin(np.abs(u))]
    v = np.cross(u, helper)
    v /= np.linalg.norm(v)
    w = np.cross(u, v)
    basis = np.stack([v, w, u], axis=1)           # columns: v, w, u (right-handed)
    rz = np.eye(3)
    rz[:2, :2] = rotation_2d(angle)
    return basis @ rz @ basis.T


def reference(a, center=None):
    center = np.zeros(len(a)) if center is None else np.asarray(center, np.float64)
    return tu.affine(a, center - a @ center)


@pytest.mark.parametrize("k", tu.golden_cases("rotation"))
def test_golden(k):
    tu.check_golden(k)


@pytest.mark.parametrize("seed", range(6))
def test_random_2d_and_3d(seed):
    rng = np.random.default_rng(seed)
    angles = [np.float32(a) for a in rng.uniform(-360, 360, size=3)]
    center = rng.normal(size=3 if seed % 2 else 2).tolist()
    if seed % 2:
        axis = rng.normal(size=3).tolist()
        out, _ = tu.run(lambda fn, a: fn.transforms.rotation(angle=a, axis=axis, center=center),
                        [angles])
        refs = [reference(rotation_3d(a, axis), center) for a in angles]
    else:
        out, _ = tu.run(lambda fn, a: fn.transforms.rotation(angle=a, center=center), [angles])
        refs = [reference(rotation_2d(a), center) for a in angles]
    for o, r in zip(out, refs, strict=True):
        assert o.dtype == np.float32 and o.shape == r.shape
        np.testing.assert_allclose(o, r, rtol=1e-5, atol=1e-5)


def test_per_frame_axis_on_input_sequence():
    rng = np.random.default_rng(2)
    seqs = [rng.normal(size=(2, 3, 4)).astype(np.float32)]
    axes = [np.float32([[1, 0, 0], [0, 1, 1]])]
    out, layout = tu.run(lambda fn, m, x: fn.transforms.rotation(
        m, angle=40, axis=fn.per_frame(x), reverse_order=True), [seqs, axes], ["F**"])
    assert layout == "F**"
    for f in range(2):
        ref = tu.compose(reference(rotation_3d(40, axes[0][f])), seqs[0][f], reverse=True)
        np.testing.assert_allclose(out[0][f], ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kwargs, message", [
    ({"angle": 3, "axis": [1, 2]}, 'Argument "axis" expected shape 3 but got 2 values'),
    ({"angle": 3, "center": [0, 0, 0]}, 'Argument "center" expected shape 2 but got 3 values'),
])
def test_errors(kwargs, message):
    with pytest.raises(RuntimeError, match="transforms.rotation") as e:
        tu.run(lambda fn: fn.transforms.rotation(**kwargs))
    assert message in str(e.value)


def test_missing_angle():
    with pytest.raises(RuntimeError, match='specify values for arguments: "angle"'):
        tu.run(lambda fn: fn.transforms.rotation())


@pytest.mark.oracle
def test_oracle_per_frame_angles():
    angles = [np.float32([10, 20, 30]), np.float32([-5])]
    tu.assert_same_as_dali(lambda fn, a: fn.transforms.rotation(
        angle=fn.per_frame(a), center=[3, 4]), [angles])
