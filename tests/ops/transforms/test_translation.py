"""fn.transforms.translation against a NumPy reference, goldens and real DALI."""

import numpy as np
import pytest
import transforms_utils as tu
from pipeline_utils import run_op


def reference(offset):
    return tu.affine(np.eye(len(offset)), offset)


@pytest.mark.parametrize("k", tu.golden_cases("translation"))
def test_golden(k):
    tu.check_golden(k)


@pytest.mark.parametrize("ndim", [1, 2, 3, 6])
def test_constant_offset(ndim):
    offset = np.random.default_rng(ndim).normal(size=ndim).tolist()
    out, layout = tu.run(lambda fn: fn.transforms.translation(offset=offset))
    assert layout == "**"
    for o in out:
        assert o.dtype == np.float32 and o.shape == (ndim, ndim + 1)
        np.testing.assert_allclose(o, reference(offset), rtol=1e-6)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_per_sample_offset_with_input(seed, reverse):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    offsets = [rng.normal(size=n).astype(np.float32) for _ in range(4)]
    mats = [rng.normal(size=(n, n + 1)).astype(np.float32) for _ in range(4)]
    out, _ = tu.run(lambda fn, m, o: fn.transforms.translation(m, offset=o,
                                                               reverse_order=reverse),
                    [mats, offsets])
    for o, off, m in zip(out, offsets, mats, strict=True):
        np.testing.assert_allclose(o, tu.compose(reference(off), m, reverse), rtol=1e-5,
                                   atol=1e-6)


def test_per_frame_offsets_and_sequence_input():
    rng = np.random.default_rng(3)
    seqs = [rng.normal(size=(f, 2, 3)).astype(np.float32) for f in (3, 1, 2)]
    offs = [rng.normal(size=(f, 2)).astype(np.float32) for f in (1, 4, 2)]
    out, layout = tu.run(lambda fn, m, o: fn.transforms.translation(m, offset=fn.per_frame(o)),
                         [seqs, offs], ["F**"])
    assert layout == "F**"
    assert [o.shape for o in out] == [(3, 2, 3), (4, 2, 3), (2, 2, 3)]
    for o, s, off in zip(out, seqs, offs, strict=True):
        for f in range(len(o)):
            ref = tu.compose(reference(off[min(f, len(off) - 1)]), s[min(f, len(s) - 1)])
            np.testing.assert_allclose(o[f], ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs, inputs, message", [
    ({"offset": []}, [], "Unsupported number of dimensions 0"),
    ({"offset": [1] * 7}, [], "Unsupported number of dimensions 7"),
    ({"offset": [1, 2]}, [[np.zeros((3, 4), np.float32)] * 3],
     "The input describes a 3D transform but other arguments suggest a 2D transform"),
    ({"offset": [1, 2]}, [[np.zeros((2, 3), np.float64)] * 3],
     "Unexpected input data type. Expected float, got: float64"),
    ({"offset": [1, 2]}, [[np.zeros((2, 2), np.float32)] * 3],
     "is expected to be a 2D tensor with dimensions (ndim, ndim+1)"),
])
def test_errors(kwargs, inputs, message):
    with pytest.raises(RuntimeError, match="transforms.translation") as e:
        tu.run(lambda fn, *x: fn.transforms.translation(*x, **kwargs), inputs)
    assert message in str(e.value)


def test_missing_offset():
    with pytest.raises(RuntimeError, match='specify values for arguments: "offset"'):
        tu.run(lambda fn: fn.transforms.translation())


def test_ragged_offsets_are_an_error():
    offs = [np.float32([1, 2]), np.float32([1, 2, 3]), np.float32([1, 2])]
    with pytest.raises(RuntimeError, match='Expected uniform shape for argument "offset"'):
        tu.run(lambda fn, o: fn.transforms.translation(offset=o), [offs])


@pytest.mark.oracle
def test_oracle_per_frame_with_plain_input():
    rng = np.random.default_rng(5)
    mats = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(2)]
    offs = [rng.normal(size=(f, 2)).astype(np.float32) for f in (2, 3)]
    tu.assert_same_as_dali(
        lambda fn, m, o: fn.transforms.translation(m, offset=fn.per_frame(o),
                                                   reverse_order=True), [mats, offs])


def test_constant_offset_over_several_batches():
    """The matrix of constant arguments is computed once; each batch composes its inputs."""
    rng = np.random.default_rng(9)
    batches = [[[rng.normal(size=(2, 3)).astype(np.float32) for _ in range(n)]]
               for n in (3, 2, 4)]
    outs = run_op(lambda fn, m: fn.transforms.translation(m, offset=[1.5, -2]), batches,
                  iterations=3, batch_size=4)
    for (batch,), (out,) in zip(batches, outs, strict=True):
        for o, m in zip(out, batch, strict=True):
            np.testing.assert_allclose(o, tu.compose(reference([1.5, -2]), m), rtol=1e-6)
