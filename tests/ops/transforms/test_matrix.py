"""What every fn.transforms.* operator shares (dali/ops/transforms/_matrix.py): the plan kept
from one batch to the next while the inputs' shapes, layouts and the batch size stay, and made
anew when they change, against the NumPy reference over several iterations."""

import numpy as np
import pytest
import transforms_utils as tu

import dali

rng = np.random.default_rng(7)
# One batch per iteration: the same shapes twice, then other dimensions, batch sizes and
# sequences (one-frame sequences: the same matrices as the plain batches).
PLAIN = [[rng.normal(size=(n, n + 1)).astype(np.float32) for _ in range(bs)]
         for n, bs in ((2, 3), (2, 3), (3, 3), (2, 1), (3, 4), (2, 3))]


def run_batches(build, batches, layout=None):
    """The outputs of `build(fn, m, m2)` on the iterations of `batches` (m2: m reversed)."""
    it = iter(batches)

    def source():
        b = next(it)
        return b, b[::-1]

    @dali.pipeline_def(batch_size=4, num_threads=1, device_id=None)
    def pipe():
        m, m2 = dali.fn.external_source(source=source, num_outputs=2, layout=layout)
        return build(dali.fn, m, m2)

    p = pipe()
    p.build()
    return [[np.array(t) for t in p.run()[0]] for _ in batches], batches


def scale_reference(n, factor):
    return tu.affine(np.eye(n) * factor, np.zeros(n))


@pytest.mark.parametrize("reverse", [False, True])
def test_operators_with_constant_arguments_over_changing_batches(reverse):
    outs, fed = run_batches(lambda fn, m, _: fn.transforms.scale(
        m, scale=1.5, reverse_order=reverse), PLAIN)
    for out, batch in zip(outs, fed, strict=True):
        assert len(out) == len(batch)
        for o, m in zip(out, batch, strict=True):
            ref = tu.compose(scale_reference(len(m), 1.5), m, reverse)
            assert o.shape == m.shape
            np.testing.assert_allclose(o, ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("reverse", [False, True])
def test_combine_over_changing_batches(reverse):
    outs, fed = run_batches(lambda fn, m, m2: fn.transforms.combine(
        m, m, m2, reverse_order=reverse), PLAIN)
    for out, batch in zip(outs, fed, strict=True):
        for o, a, b in zip(out, batch, batch[::-1], strict=True):
            ref = tu.compose(tu.compose(a, a), b) if reverse else \
                tu.compose(b, tu.compose(a, a))
            np.testing.assert_allclose(o, ref, rtol=1e-5, atol=1e-5)


def test_sequences_over_changing_frame_counts():
    seqs = [[rng.normal(size=(f, 2, 3)).astype(np.float32) for f in frames]
            for frames in ((2, 1, 3), (2, 1, 3), (1, 4), (3, 3, 1, 2))]
    outs, fed = run_batches(lambda fn, m, _: fn.transforms.rotation(
        m, angle=90.0, center=[1.0, 2.0]), seqs, layout="F**")
    rot = tu.affine([[0.0, -1.0], [1.0, 0.0]], [3.0, 1.0])    # about (1, 2)
    for out, batch in zip(outs, fed, strict=True):
        for o, s in zip(out, batch, strict=True):
            assert o.shape == s.shape
            for f in range(len(s)):
                np.testing.assert_allclose(o[f], tu.compose(rot, s[f]), rtol=1e-6, atol=1e-6)


def test_argument_inputs_are_read_every_batch():
    """With an argument input there is no plan kept: each batch's values are used."""
    offsets = [[np.float32([i, -i]) for i in range(k, k + 3)] for k in range(3)]
    outs, fed = run_batches(lambda fn, o, _: fn.transforms.translation(
        fn.transforms.rotation(angle=30.0), offset=o), offsets)
    c, s = np.cos(np.float32(30 * np.pi / 180)), np.sin(np.float32(30 * np.pi / 180))
    for out, batch in zip(outs, fed, strict=True):
        for o, off in zip(out, batch, strict=True):
            np.testing.assert_allclose(o, [[c, -s, off[0]], [s, c, off[1]]], rtol=1e-6)


def test_per_frame_argument_inputs_over_changing_frame_counts():
    offsets = [[rng.normal(size=(f, 2)).astype(np.float32) for f in frames]
               for frames in ((2, 1, 3), (2, 1, 3), (1, 4, 1), (3, 3, 2), (1, 2))]
    outs, fed = run_batches(lambda fn, o, _: fn.transforms.translation(
        offset=fn.per_frame(o)), offsets)
    for out, batch in zip(outs, fed, strict=True):
        assert [o.shape for o in out] == [(len(s), 2, 3) for s in batch]
        for o, s in zip(out, batch, strict=True):
            np.testing.assert_array_equal(o[:, :, :2], np.broadcast_to(np.eye(2), (len(s), 2, 2)))
            np.testing.assert_array_equal(o[:, :, 2], s)


def _samples(shape, lo=-2.0, hi=2.0, count=4):
    return [rng.uniform(lo, hi, size=shape).astype(np.float32) for _ in range(count)]


# (build(fn, m, v), input matrices, argument input): per-sample argument inputs with and
# without input transforms, one value repeated over the dimensions, centers, both orders.
ARGUMENT_INPUT_CASES = {
    "scale one value, 3-D, center": (lambda fn, m, v: fn.transforms.scale(
        m, scale=v, center=[1.0, -2.0, 0.5]), _samples((3, 4)), _samples(())),
    "scale per axis, reverse": (lambda fn, m, v: fn.transforms.scale(
        m, scale=v, reverse_order=True), _samples((2, 3)), _samples((2,))),
    "translation without input": (lambda fn, m, v: fn.transforms.translation(offset=v),
                                  _samples((2, 3)), _samples((3,))),
    "rotation 2-D, center": (lambda fn, m, v: fn.transforms.rotation(
        m, angle=v, center=[3.0, -1.0]), _samples((2, 3)), _samples((), -180, 180)),
    "rotation 3-D, axis and center, reverse": (lambda fn, m, v: fn.transforms.rotation(
        m, angle=v, axis=[0.5, -1.0, 2.0], center=[1.0, 2.0, 3.0], reverse_order=True),
        _samples((3, 4)), _samples((), -180, 180)),
    "rotation 3-D, per-sample axis": (lambda fn, m, v: fn.transforms.rotation(
        angle=35.0, axis=v), _samples((3, 4)), _samples((3,))),
    "shear angles, center, reverse": (lambda fn, m, v: fn.transforms.shear(
        m, angles=v, center=[2.0, 1.0], reverse_order=True),
        _samples((2, 3)), _samples((2,), -60, 60)),
    "shear factors 3-D": (lambda fn, m, v: fn.transforms.shear(m, shear=v),
                          _samples((3, 4)), _samples((3, 2))),
    "crop one value, absolute": (lambda fn, m, v: fn.transforms.crop(
        m, from_start=v, from_end=[5.0, 6.0], to_start=[-1.0], absolute=True),
        _samples((2, 3)), _samples(())),
    "crop per axis, reverse": (lambda fn, m, v: fn.transforms.crop(
        m, to_end=v, from_end=[5.0, 6.0, 7.0], reverse_order=True),
        _samples((3, 4)), _samples((3,))),
}


@pytest.mark.oracle
@pytest.mark.parametrize("case", ARGUMENT_INPUT_CASES)
def test_oracle_argument_inputs(case):
    build, mats, values = ARGUMENT_INPUT_CASES[case]
    tu.assert_same_as_dali(build, [mats, values])
