import importlib
import inspect

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import Pipeline, fn, ops
from dali._executor.errors import PipelineError
from dali.pipeline import experimental

torch = pytest.importorskip("torch")
tdl = pytest.importorskip("torch.utils.dlpack")

ORACLE = [False, pytest.param(True, marks=pytest.mark.oracle)]


def random_batch(rng, dtype, ndim=3):
    return [rng.integers(0, 100, size=rng.integers(1, 6, size=ndim)).astype(dtype)
            for _ in range(rng.integers(1, 5))]


def times_two(c):
    return tdl.to_dlpack(tdl.from_dlpack(c) * 2)


def batch_times_two(cs):
    assert isinstance(cs, list)
    return [times_two(c) for c in cs]


@pytest.mark.parametrize("real", ORACLE)
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("batch_processing", [None, False, True])
def test_values(real, seed, batch_processing):
    rng = np.random.default_rng(seed)
    dtype = [np.uint8, np.int16, np.float32, np.float64][seed]
    batch = random_batch(rng, dtype)
    kw = {} if batch_processing is None else {"batch_processing": batch_processing}
    function = times_two if batch_processing is False else batch_times_two
    out, = run_op(lambda fn, x: fn.dl_tensor_python_function(x, function=function, **kw),
                  [batch], real=real)
    for o, b in zip(out, batch, strict=True):
        assert o.dtype == dtype
        np.testing.assert_array_equal(o, (b * 2).astype(dtype))


@pytest.mark.parametrize("real", ORACLE)
def test_default_is_one_call_per_batch(real):
    seen = []

    def record(cs):
        seen.append((type(cs).__name__, tuple(type(c).__name__ for c in cs)))
        return cs

    batch = [np.arange(3, dtype=np.int32), np.arange(2, dtype=np.int32)]
    out, = run_op(lambda fn, x: fn.dl_tensor_python_function(x, function=record), [batch],
                  real=real)
    assert set(seen) == {("list", ("PyCapsule", "PyCapsule"))}    # DALI may run ahead
    assert [o.tolist() for o in out] == [[0, 1, 2], [0, 1]]


def test_inputs_are_zero_copy_views():
    addresses = []

    def check(a, b):
        ta, tb = tdl.from_dlpack(a), tdl.from_dlpack(b)
        addresses.append((ta.data_ptr(), tb.data_ptr()))
        return tdl.to_dlpack(ta + tb)

    batch = [np.full((2, 2), 3, np.int32)]
    out, = run_op(lambda fn, x: fn.dl_tensor_python_function(
        x, x, function=check, batch_processing=False), [batch])
    assert addresses[0][0] == addresses[0][1]
    assert out[0].tolist() == [[6, 6], [6, 6]]


@pytest.mark.parametrize("real", ORACLE)
def test_several_inputs_outputs_and_layouts(real):
    def two(a, b):
        ta, tb = tdl.from_dlpack(a), tdl.from_dlpack(b)
        return tdl.to_dlpack(ta - tb), tdl.to_dlpack((ta * tb).to(torch.int64))

    pkg = importlib.import_module("nvidia.dali" if real else "dali")
    p = pkg.Pipeline(batch_size=2, num_threads=1, device_id=None)
    batch = [np.arange(6, dtype=np.int32).reshape(2, 3), np.ones((1, 2), np.int32)]
    with p:
        x = pkg.fn.external_source(lambda: batch, layout="HW")
        a, b = pkg.fn.dl_tensor_python_function(x, x + 1, function=two, num_outputs=2,
                                                batch_processing=False, output_layouts=["AB"])
        p.set_outputs(a, b)
    a, b = p.run()
    assert a.layout() == "AB" and b.layout() == ""
    assert [np.array(t).tolist() for t in a] == [[[-1] * 3] * 2, [[-1, -1]]]
    assert [np.array(t).tolist() for t in b] == [[[0, 2, 6], [12, 20, 30]], [[2, 2]]]
    assert np.array(b[0]).dtype == np.int64


def test_dlpack_objects_are_accepted_as_results():
    batch = [np.arange(4, dtype=np.float32)]
    out, = run_op(lambda fn, x: fn.dl_tensor_python_function(
        x, function=lambda c: tdl.from_dlpack(c) + 1, batch_processing=False), [batch])
    assert out[0].tolist() == [1, 2, 3, 4]


def test_results_are_copied():
    kept = []

    def keep(c):
        kept.append(tdl.from_dlpack(c) + 1)
        return tdl.to_dlpack(kept[-1])

    out, = run_op(lambda fn, x: fn.dl_tensor_python_function(
        x, function=keep, batch_processing=False), [[np.zeros(3, np.int16)]])
    kept[0][...] = 9
    assert out[0].tolist() == [1, 1, 1]


@pytest.mark.parametrize("batch_processing", [False, True])
def test_returned_input_capsules_give_the_input_batch(batch_processing):
    """The capsules it got, all returned in order: the input batch is the output, uncopied
    (the same values; the layout check still applies).  Any other result is copied."""
    batch = [np.arange(6, dtype=np.int16).reshape(2, 3), np.full((1, 3), 7, np.int16)]
    p = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p:
        x = fn.external_source(lambda: batch, layout="HW")
        same = fn.dl_tensor_python_function(x, function=lambda c: c,
                                            batch_processing=batch_processing,
                                            output_layouts="XY")
        swapped = fn.dl_tensor_python_function(x, function=lambda cs: cs[::-1])
        p.set_outputs(x, same, swapped)
    x, same, swapped = p.run()
    assert same.layout() == "XY"
    assert [np.array(t).tolist() for t in same] == [b.tolist() for b in batch]
    assert [np.array(t).tolist() for t in swapped] == [b.tolist() for b in batch[::-1]]
    views = [np.asarray(t) for t in (same[0], x[0], swapped[1])]
    address = [v.__array_interface__["data"][0] for v in views]
    assert address[0] == address[1] != address[2]
    p = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p:
        p.set_outputs(fn.dl_tensor_python_function(fn.external_source(lambda: batch),
                                                   function=lambda cs: cs,
                                                   output_layouts="ABC"))
    with pytest.raises(PipelineError, match='output_layouts\\[0\\] "ABC" has 3 dimensions but '
                                            "output 0 has 2"):
        p.run()


def test_debug_mode_and_ops_api():
    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(lambda: [np.arange(2, dtype=np.uint8)] * 2)
        return ops.DLTensorPythonFunction(function=batch_times_two)(x)

    out, = pipe().run()
    assert [np.array(t).tolist() for t in out] == [[0, 2], [0, 2]]


def test_synchronize_stream_has_no_effect():
    out, = run_op(lambda fn, x: fn.dl_tensor_python_function(
        x, function=batch_times_two, synchronize_stream=False), [[np.ones(2, np.int8)]])
    assert out[0].tolist() == [2, 2]
    assert "no effect here" in fn.dl_tensor_python_function.__doc__


@pytest.mark.oracle
def test_arguments_match_real_dali():
    real = importlib.import_module("nvidia.dali.fn")
    ours = inspect.signature(fn.dl_tensor_python_function).parameters
    theirs = inspect.signature(real.dl_tensor_python_function).parameters
    assert list(ours) == list(theirs)
    # DALI's signature shows the schema's default, its wrapper uses True (test_default_...).
    assert {k: p.default for k, p in ours.items() if k != "batch_processing"} == \
        {k: p.default for k, p in theirs.items() if k != "batch_processing"}


def test_not_serializable():
    p = Pipeline(batch_size=1, num_threads=1, device_id=None)
    with p:
        p.set_outputs(fn.dl_tensor_python_function(
            fn.external_source(lambda: [np.zeros(1)]), function=batch_times_two))
    with pytest.raises(RuntimeError):
        p.serialize()


# -- errors ------------------------------------------------------------------------------------

def test_needs_a_pipeline():
    with pytest.raises(RuntimeError, match="Current Pipeline not set!"):
        fn.dl_tensor_python_function(function=lambda: None)


@pytest.mark.parametrize("kw, function, message", [
    (dict(batch_processing=False), lambda c: tdl.from_dlpack(c).numpy().tolist(),
     "output 0 of the function is a list; it must return DLPack tensors"),
    ({}, lambda cs: cs[0],
     r"output 0 must be a list of 2 arrays \(one per sample\), got PyCapsule"),
    (dict(num_outputs=2), lambda cs: cs[0],
     r"must return a tuple of 2 outputs \(num_outputs=2\) for the function, got PyCapsule"),
])
def test_bad_results(kw, function, message):
    batch = [np.zeros(2, np.float32)] * 2

    def build(fn, x):
        out = fn.dl_tensor_python_function(x, function=function, **kw)
        return tuple(out) if isinstance(out, list) else out

    with pytest.raises(PipelineError, match=r"dali\.fn\.dl_tensor_python_function") as e:
        run_op(build, [batch])
    assert e.match(message)


@pytest.mark.oracle
def test_non_capsules_fail_in_real_dali_too():
    with pytest.raises(RuntimeError, match="should return a list of DLPack tensors"):
        run_op(lambda fn, x: fn.dl_tensor_python_function(
            x, function=lambda c: tdl.from_dlpack(c).numpy(), batch_processing=False),
            [[np.zeros(2, np.float32)]], real=True)
