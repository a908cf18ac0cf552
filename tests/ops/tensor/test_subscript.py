"""Subscripts on DataNodes: `x[1]`, `x[a:b:c]`, per-sample indices, `dali.newaxis`."""

import importlib

import numpy as np
import pytest

import dali
from dali import fn
from dali._executor.errors import PipelineError

X = [np.arange(60, dtype=np.int16).reshape(3, 4, 5), np.arange(24, dtype=np.int16).reshape(2, 3, 4)]


def run(build, *batches, layouts=None, real=False):
    """(arrays, layout, dtype) of each output of `build(pkg, *nodes)` on dali or real DALI."""
    pkg = importlib.import_module("nvidia.dali" if real else "dali")
    layouts = layouts or [None] * len(batches)

    @pkg.pipeline_def(batch_size=len(batches[0]), num_threads=1, device_id=None)
    def pipe():
        nodes = [pkg.fn.external_source(source=_returning(b), layout=lay)
                 for b, lay in zip(batches, layouts, strict=True)]
        out = build(pkg, *nodes)
        return out if isinstance(out, tuple) else (out,)

    p = pipe()
    p.build()
    return [([np.array(t) for t in tl], tl.layout(), np.array(tl[0]).dtype) for tl in p.run()]


def _returning(batch):
    return lambda: batch


def sub(index, batch=X, layout="HWC"):
    """Samples and layout of `x[index]`."""
    (out,) = run(lambda pkg, x: x[index], batch, layouts=[layout])
    return out[0], out[1]


@pytest.mark.parametrize("index", [
    1, -1, (slice(None), 1), (0, 0, 0), (1, slice(None), -1), slice(1, None), slice(None, None, -1),
    slice(None, None, 2), slice(-2, None), (slice(None), slice(None), slice(None, None, -2)),
    slice(10, 20), slice(2, 1), slice(-10, 2), (slice(None), slice(3, 0, -1), slice(-1, -6, -2)),
    None, (None, 1), (slice(None),) * 3, True, np.int64(1), np.array(-2), slice(1.5, None),
    slice(None, 2.7)])
def test_matches_numpy_indexing(index):
    np_index = tuple(slice(None) if i is None else int(i) if i is True else i for i in (
        index if isinstance(index, tuple) else (index,)))
    np_index = tuple(slice(*(int(v) if isinstance(v, float) else v
                             for v in (s.start, s.stop, s.step))) if isinstance(s, slice) else s
                     for s in np_index)
    removed = [d for d, i in enumerate(np_index) if not isinstance(i, slice)]
    for batch in (X, [X[0], X[0] * 2]):     # per-sample and whole-batch paths
        got, layout = sub(index, batch)
        for g, x in zip(got, batch, strict=True):
            np.testing.assert_array_equal(g, x[np_index])
        assert layout == "".join(c for d, c in enumerate("HWC") if d not in removed)


def test_none_is_a_full_slice_not_a_new_axis():
    got, layout = sub(None)
    assert [g.shape for g in got] == [(3, 4, 5), (2, 3, 4)] and layout == "HWC"


N = np.newaxis


@pytest.mark.parametrize("index, np_index, layout", [
    (dali.newaxis, N, ""),
    (dali.newaxis("F"), N, "FHWC"),
    ((slice(None), dali.newaxis("F")), (slice(None), N), "HFWC"),
    ((1, dali.newaxis("F")), (1, N), "FWC"),
    ((dali.newaxis("F"), 1), (N, 1), "FWC"),
    ((dali.newaxis("F"), slice(None), dali.newaxis("G")), (N, slice(None), N), "FHGWC"),
    ((slice(None),) * 3 + (dali.newaxis,), (slice(None),) * 3 + (N,), ""),
    ((1, dali.newaxis), (1, N), "")])
def test_newaxis(index, np_index, layout):
    got, lay = sub(index)
    assert lay == layout
    for g, x in zip(got, X, strict=True):
        np.testing.assert_array_equal(g, x[np_index])


def test_newaxis_object():
    assert dali.newaxis.name is None and dali.newaxis("F").name == "F"
    assert repr(dali.newaxis("F")) == 'dali.newaxis("F")'
    with pytest.raises(ValueError, match="single-character"):
        dali.newaxis("FG")
    with pytest.raises(TypeError, match="single-character"):
        dali.newaxis(1)


@pytest.mark.parametrize("index, exc, match", [
    (Ellipsis, NotImplementedError, "Ellipsis"), (1.5, TypeError, "Invalid type for an index"),
    ("a", TypeError, "Invalid type"), (np.float32(1), TypeError, "Invalid type"),
    ([1], TypeError, "argument 'at_0'"), (slice("a", None), ValueError, "lo_0"),
    ((dali.newaxis, dali.newaxis("F")), ValueError, "for all axes or none")])
def test_bad_indices_fail_at_definition(index, exc, match):
    @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(source=lambda: X[:1])[index]

    with pytest.raises(exc, match=match):
        pipe()


@pytest.mark.parametrize("build, match", [
    (lambda x: x[5], r"Index 5 is out of range for axis 0 of length 3.*\n\(in sample 0"),
    (lambda x: x[:, -4], r"Index -4 is out of range for axis 1 of length 3.*\n\(in sample 1"),
    (lambda x: x[:, :, :, :], r"Too many indices \(4\) for a 3-D tensor"),
    (lambda x: x[0, 0, 0, 0], r"Too many indices \(4\) for a 3-D tensor"),
    (lambda x: x[::0], "Step cannot be zero"),
    (lambda x: x[0, 0, 0][0], "Cannot apply an index to a scalar"),
    (lambda x: x[:, :, :, :, dali.newaxis], "not enough dimensions"),
    (lambda x: x[:, :, :, dali.newaxis, :], r"Too many indices \(4\)")])
def test_bad_indices_fail_when_run(build, match):
    with pytest.raises(PipelineError, match=match) as info:
        run(lambda pkg, x: build(x), [X[0], X[1][:, :3]])
    assert "dali.fn." in str(info.value)


def test_per_sample_indices():
    idx = [np.array(1, np.int64), np.array(-1, np.int64)]
    cases = [(lambda x, i: x[i], lambda x, i: x[i]),
             (lambda x, i: x[:, i], lambda x, i: x[:, i]),
             (lambda x, i: x[i:], lambda x, i: x[i:]),
             (lambda x, i: x[:i, 1], lambda x, i: x[:i, 1]),
             (lambda x, i: x[::i], lambda x, i: x[::i])]
    for build, ref in cases:
        (out,) = run(lambda pkg, x, i, build=build: build(x, i), X, idx, layouts=["HWC", None])
        for o, x, i in zip(out[0], X, idx, strict=True):
            np.testing.assert_array_equal(o, ref(x, int(i)))
    (out,) = run(lambda pkg, x, i: x[i], X, [np.array(2, np.uint8), np.array(0, np.uint8)])
    np.testing.assert_array_equal(out[0][0], X[0][2])


@pytest.mark.parametrize("index, match", [
    ([np.array([1], np.int32)] * 2, r"must be scalar \(0D\). Got 1D tensor"),
    ([np.array(1.0, np.float32)] * 2, "must be of integral type")])
def test_bad_per_sample_indices(index, match):
    with pytest.raises(PipelineError, match=match):
        run(lambda pkg, x, i: x[i], X, index)
    with pytest.raises(PipelineError, match=r"must be scalar \(0D\)"):
        run(lambda pkg, x: x[np.array([1, 2])], X)


def test_recorded_operators():
    seen = {}

    @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: X[:1], layout="HWC")
        seen["slice"] = x[1, ::2]
        seen["check"] = x[:, :]
        seen["expand"] = x[dali.newaxis("F")]
        return seen["slice"], seen["check"], seen["expand"]

    p = pipe()
    s = seen["slice"].source
    assert s.schema.class_name == "_TensorSubscript" and s.name.startswith("___TensorSubscript_")
    assert s.args["at_0"] == 1 and s.args["step_1"] == 2 and s.args["num_subscripts"] == 2
    assert seen["check"].source.schema.name == "_subscript_dim_check"
    assert seen["check"].source.args == {"num_subscripts": 2}
    e = seen["expand"].source
    assert e.schema.name == "expand_dims" and e.args["axes"] == [0]
    assert e.inputs[0].source.schema.name == "external_source"   # no dimension check needed
    outs = p.run()
    np.testing.assert_array_equal(np.array(outs[0][0]), X[0][1, ::2])
    assert outs[1].layout() == "HWC" and outs[2].layout() == "FHWC"


@pytest.mark.oracle
def test_subscripts_match_real_dali():
    rng = np.random.default_rng(5)
    data = [rng.integers(0, 100, s).astype(np.uint8) for s in [(6, 7, 3), (5, 9, 3), (6, 4, 3)]]
    idx = [np.array(v, np.int32) for v in (2, -1, 0)]

    def build(pkg, x, i):
        return (x[1], x[-2, 1:], x[:, ::-2], x[None], x[1:-1, -5:, 2], x[::2, ::3, ::-1],
                x[i], x[i:], x[:, i], x[pkg.newaxis("F"), 2], x[:, pkg.newaxis],
                x[:, :, :, pkg.newaxis("Q")], x[0, 0, 0], x[5:1:-2])

    ours = run(build, data, idx, layouts=["HWC", None])
    real = run(build, data, idx, layouts=["HWC", None], real=True)
    for k, ((o, lo, do), (r, lr, dr)) in enumerate(zip(ours, real, strict=True)):
        assert (lo, do) == (lr, dr), k
        for a, b in zip(o, r, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=str(k))
