"""fn.transforms.combine against a NumPy reference, goldens and real DALI."""

import numpy as np
import pytest
import transforms_utils as tu


@pytest.mark.parametrize("k", tu.golden_cases("combine"))
def test_golden(k):
    tu.check_golden(k)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("count", [2, 3, 5])
def test_random_chains(count, reverse):
    rng = np.random.default_rng(count)
    n = int(rng.integers(1, 7))
    batches = [[rng.normal(size=(n, n + 1)).astype(np.float32) for _ in range(3)]
               for _ in range(count)]
    out, layout = tu.run(lambda fn, *m: fn.transforms.combine(*m, reverse_order=reverse),
                         batches)
    assert layout == "**"
    for i, o in enumerate(out):
        ref = batches[0][i]
        for b in batches[1:]:
            ref = tu.compose(ref, b[i]) if reverse else tu.compose(b[i], ref)
        np.testing.assert_allclose(o, ref, rtol=1e-4, atol=1e-4)


def test_sequence_and_plain_transforms():
    rng = np.random.default_rng(0)
    seqs = [rng.normal(size=(f, 2, 3)).astype(np.float32) for f in (3, 1)]
    plain = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(2)]
    out, layout = tu.run(lambda fn, s, p: fn.transforms.combine(p, s), [seqs, plain],
                         ["F**"])
    assert layout == "F**" and [o.shape for o in out] == [(3, 2, 3), (1, 2, 3)]
    for o, s, p in zip(out, seqs, plain, strict=True):
        for f in range(len(s)):
            np.testing.assert_allclose(o[f], tu.compose(s[f], p), rtol=1e-5, atol=1e-5)


def test_shapes_must_agree():
    a = [np.zeros((2, 3), np.float32)] * 2
    b = [np.zeros((3, 4), np.float32)] * 2
    with pytest.raises(RuntimeError, match="transforms.combine: All input transforms are "
                                           "expected to have the same shape"):
        tu.run(lambda fn, x, y: fn.transforms.combine(x, y), [a, b])


def test_needs_two_inputs():
    with pytest.raises((TypeError, ValueError), match="transforms.combine"):
        tu.run(lambda fn, x: fn.transforms.combine(x), [[np.zeros((2, 3), np.float32)]])


@pytest.mark.oracle
def test_oracle_chain_of_transforms():
    tu.assert_same_as_dali(lambda fn: fn.transforms.combine(
        fn.transforms.translation(offset=[1, 2]), fn.transforms.scale(scale=[2, 3]),
        fn.transforms.rotation(angle=90), fn.transforms.shear(angles=[10, 20]),
        reverse_order=True))
