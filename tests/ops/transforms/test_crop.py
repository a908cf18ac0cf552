"""fn.transforms.crop against a NumPy reference, goldens and real DALI."""

import numpy as np
import pytest
import transforms_utils as tu


def reference(fs, fe, ts, te, n):
    fs, fe, ts, te = (np.broadcast_to(np.asarray(v, np.float64), (n,)) for v in (fs, fe, ts, te))
    scale = (te - ts) / (fe - fs)
    return tu.affine(np.diag(scale), ts - fs * scale)


@pytest.mark.parametrize("k", tu.golden_cases("crop"))
def test_golden(k):
    tu.check_golden(k)


@pytest.mark.parametrize("seed", range(6))
def test_random_boxes(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 4))
    boxes = {name: [rng.uniform(-5, 5, size=n).astype(np.float32) for _ in range(3)]
             for name in ("from_start", "from_end", "to_start", "to_end")}
    names = list(boxes)
    out, _ = tu.run(lambda fn, *v: fn.transforms.crop(**dict(zip(names, v, strict=True))),
                    [boxes[k] for k in names])
    for i, o in enumerate(out):
        ref = reference(*(boxes[k][i] for k in names), n)
        np.testing.assert_allclose(o, ref, rtol=1e-4, atol=1e-4)


def test_absolute_swaps_reversed_ranges():
    out, _ = tu.run(lambda fn: fn.transforms.crop(from_start=[4, 1], from_end=[2, 3],
                                                  to_start=[1], to_end=[0], absolute=True))
    np.testing.assert_allclose(out[0], reference([2, 1], [4, 3], [0], [1], 2))
    out, _ = tu.run(lambda fn: fn.transforms.crop(from_start=[4, 1], from_end=[2, 3],
                                                  to_start=[1], to_end=[0]))
    np.testing.assert_allclose(out[0], reference([4, 1], [2, 3], [1], [0], 2))


def test_defaults_and_empty_range():
    out, layout = tu.run(lambda fn: fn.transforms.crop())
    assert layout == "**"
    np.testing.assert_array_equal(out[0], np.float32([[1, 0]]))
    out, _ = tu.run(lambda fn: fn.transforms.crop(from_start=[1, 1], from_end=[1, 2]))
    np.testing.assert_array_equal(out[0], np.float32([[np.inf, 0, -np.inf], [0, 1, -1]]))


def test_sizes_must_agree():
    with pytest.raises(RuntimeError, match="transforms.crop: Arguments ``from_start``, "
                                           "``from_end``, ``to_start`` and ``to_end`` should "
                                           "have the same number of dimensions"):
        tu.run(lambda fn: fn.transforms.crop(from_start=[1, 2], to_end=[1, 2, 3]))


@pytest.mark.oracle
def test_oracle_with_sequence_input():
    rng = np.random.default_rng(8)
    seqs = [rng.normal(size=(f, 2, 3)).astype(np.float32) for f in (2, 1)]
    tu.assert_same_as_dali(lambda fn, m: fn.transforms.crop(
        m, from_start=[10, 20], from_end=[30, 25], to_start=[-1], to_end=[1]), [seqs], ["F**"])
