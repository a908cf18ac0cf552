import importlib
import inspect

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import Pipeline, fn, ops, pipeline_def
from dali._executor.errors import PipelineError
from dali.pipeline import experimental

SAMPLES = [np.arange(3, dtype=np.float32), np.arange(2, dtype=np.float32)]
ORACLE = [False, pytest.param(True, marks=pytest.mark.oracle)]


def run(build, inputs=(SAMPLES,), **kw):
    return run_op(build, list(inputs), **kw)


def as_lists(out):
    return [[x.tolist() for x in o] for o in out]


@pytest.mark.parametrize("real", ORACLE)
def test_per_sample(real):
    out = run(lambda fn, x: fn.python_function(x, function=lambda a: a * 2), real=real)
    assert as_lists(out) == [[[0, 2, 4], [0, 2]]]
    assert out[0][0].dtype == np.float32


@pytest.mark.parametrize("real", ORACLE)
def test_batch_processing_gets_lists(real):
    seen = []

    def reverse(batch):
        seen.append(type(batch))
        return [s[::-1] for s in batch]

    out = run(lambda fn, x: fn.python_function(x, function=reverse, batch_processing=True),
              real=real)
    assert as_lists(out) == [[[2, 1, 0], [1, 0]]] and set(seen) == {list}


@pytest.mark.parametrize("real", ORACLE)
def test_several_inputs_and_outputs(real):
    def build(fn, x):
        a, b = fn.python_function(x, x, function=lambda p, q: (p + q, (p * q).astype(np.int64)),
                                  num_outputs=2)
        return a, b

    a, b = run(build, real=real)
    assert [x.tolist() for x in a] == [[0, 2, 4], [0, 2]]
    assert [x.tolist() for x in b] == [[0, 1, 4], [0, 1]] and b[0].dtype == np.int64


@pytest.mark.parametrize("real", ORACLE)
def test_without_inputs(real):
    out = run(lambda fn, x: (x, fn.python_function(function=lambda: np.ones(2, np.int16))),
              real=real)
    assert [x.tolist() for x in out[1]] == [[1, 1], [1, 1]] and out[1][0].dtype == np.int16
    out = run(lambda fn, x: (x, fn.python_function(
        function=lambda: [np.full(1, 7, np.uint8)] * 2, batch_processing=True)), real=real)
    assert [x.tolist() for x in out[1]] == [[7], [7]]


@pytest.mark.parametrize("real", ORACLE)
@pytest.mark.parametrize("dtype", [np.float16, np.bool_, np.int64, np.uint32, np.float64])
def test_output_types_are_kept(real, dtype):
    out = run(lambda fn, x: fn.python_function(x, function=lambda a: (a > 0).astype(dtype)),
              real=real)
    assert out[0][0].dtype == dtype and out[0][0].tolist() == [0, 1, 1]


@pytest.mark.parametrize("real", ORACLE)
def test_non_contiguous_results(real):
    out = run(lambda fn, x: fn.python_function(x, function=lambda a: np.stack([a, a])[:, ::2].T),
              real=real)
    assert as_lists(out) == [[[[0, 0], [2, 2]], [[0, 0]]]]


def layouts_of(build, real=False):
    pkg = importlib.import_module("nvidia.dali" if real else "dali")
    p = pkg.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p:
        x = pkg.fn.external_source(lambda: SAMPLES, layout="X")
        outs = build(pkg.fn, x)
        p.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return [t.layout() for t in p.run()]


@pytest.mark.parametrize("real", ORACLE)
def test_layouts(real):
    def both(fn, x, **kw):
        return fn.python_function(x, function=lambda a: (a, a + 1), num_outputs=2, **kw)

    assert layouts_of(lambda fn, x: fn.python_function(x, function=lambda a: a), real) == [""]
    assert layouts_of(lambda fn, x: both(fn, x, output_layouts="A"), real) == ["A", "A"]
    assert layouts_of(lambda fn, x: both(fn, x, output_layouts=["A"]), real) == ["A", ""]
    assert layouts_of(lambda fn, x: both(fn, x, output_layouts=["A", "B"]), real) == ["A", "B"]


def test_runs_in_every_executor_mode():
    for exec_async in (True, False):
        for exec_pipelined in (True, False):
            out = run(lambda fn, x: fn.python_function(x, function=lambda a: a + 1),
                      exec_async=exec_async, exec_pipelined=exec_pipelined, iterations=1)
            assert as_lists(out) == [[[1, 2, 3], [1, 2]]], (exec_async, exec_pipelined)


def test_runs_in_debug_mode():
    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(lambda: SAMPLES)
        return fn.python_function(x, function=lambda a: a * 3)

    out, = pipe().run()
    assert [np.array(t).tolist() for t in out] == [[0, 3, 6], [0, 3]]


def test_is_never_pruned():
    calls = []

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(lambda: SAMPLES)
        fn.python_function(x, function=lambda a: calls.append(a.size) or a)
        fn.python_function(x, function=lambda a: calls.append(-a.size), num_outputs=0)
        return x

    pipe().run()
    assert sorted(calls) == [-3, -2, 2, 3]


def test_results_are_copied():
    kept = []

    def keep(a):
        kept.append(a + 1)
        return kept[-1]

    p = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p:
        p.set_outputs(fn.python_function(fn.external_source(lambda: SAMPLES), function=keep))
    out, = p.run()
    for k in kept:
        k[...] = -1
    assert [np.array(t).tolist() for t in out] == [[1, 2, 3], [1, 2]]


@pytest.mark.parametrize("batch_processing", [False, True])
def test_returned_input_arrays_give_the_input_batch(batch_processing):
    """The arrays it got, all returned in order: the input batch is the output, uncopied.
    Equal arrays that are not those objects are copied."""
    p = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p:
        x = fn.external_source(lambda: SAMPLES)
        p.set_outputs(x, fn.python_function(x, function=lambda a: a,
                                            batch_processing=batch_processing),
                      fn.python_function(x, function=lambda a: a.copy(),
                                         batch_processing=False))
    x, same, copied = p.run()
    assert [np.array(t).tolist() for t in same] == [s.tolist() for s in SAMPLES]
    assert [np.array(t).tolist() for t in copied] == [s.tolist() for s in SAMPLES]
    views = [np.asarray(t) for t in (same[1], x[1], copied[1])]
    address = [v.__array_interface__["data"][0] for v in views]
    assert address[0] == address[1] != address[2]


def test_lists_and_numpy_scalars_are_accepted():
    # Real DALI insists on a tuple for several outputs and rejects numpy scalars.
    out = run(lambda fn, x: tuple(fn.python_function(
        x, function=lambda a: [a, np.float64(a.sum())], num_outputs=2)))
    assert [x.tolist() for x in out[1]] == [3.0, 1.0] and out[1][0].shape == ()


def test_ops_api_and_signature():
    p = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p:
        op = ops.PythonFunction(function=lambda a: a - 1)
        p.set_outputs(op(fn.external_source(lambda: SAMPLES)))
    assert [np.array(t).tolist() for t in p.run()[0]] == [[-1, 0, 1], [-1, 0]]


@pytest.mark.oracle
def test_signature_matches_real_dali():
    real = importlib.import_module("nvidia.dali.fn")
    ours, theirs = inspect.signature(fn.python_function), inspect.signature(
        real.python_function)
    assert list(ours.parameters) == list(theirs.parameters)
    assert [p.default for p in ours.parameters.values()] == \
        [p.default for p in theirs.parameters.values()]


# -- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("real", ORACLE)
def test_needs_a_pipeline(real):
    real_fn = importlib.import_module("nvidia.dali.fn" if real else "dali.fn")
    with pytest.raises(RuntimeError, match="Current Pipeline not set!"):
        real_fn.python_function(function=lambda: np.zeros(2))


def user_function(a):
    raise KeyError("the user's own failure")


def test_user_exceptions_are_chained():
    p = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p:
        x = fn.external_source(lambda: SAMPLES)
        p.set_outputs(fn.python_function(x, function=user_function))
    line = inspect.currentframe().f_lineno - 1
    with pytest.raises(PipelineError) as e:
        p.run()
    cause = e.value.__cause__
    assert isinstance(cause, KeyError) and cause.args == ("the user's own failure",)
    msg = str(e.value)
    assert "dali.fn.python_function" in msg and f"test_python_function.py\", line {line}" in msg
    assert "KeyError: \"the user's own failure\"" in msg
    frames = [f.name for f in __import__("traceback").extract_tb(cause.__traceback__)]
    assert frames[-1] == "user_function"


def test_stop_iteration_from_the_function_is_an_error_not_the_end_of_data():
    def stop(a):
        raise StopIteration

    with pytest.raises(PipelineError) as e:
        run(lambda fn, x: fn.python_function(x, function=stop))
    assert isinstance(e.value.__cause__, StopIteration)


@pytest.mark.parametrize("kw, function, message", [
    (dict(num_outputs=2), lambda a: a,
     r"must return a tuple of 2 outputs \(num_outputs=2\) for sample 0, got ndarray"),
    (dict(num_outputs=2), lambda a: (a, a, a), "got 3 values"),
    ({}, lambda a: 3, "output 0 of the function is a int; it must return numpy arrays"),
    ({}, lambda a: [1, 2], "output 0 of the function is a list"),
    ({}, lambda a: None, "output 0 of the function is a NoneType"),
    ({}, lambda a: np.array(["s"]), "has the unsupported type <U1"),
    ({}, lambda a: a.astype(np.int32) if a.size == 2 else a,
     "same type and number of dimensions in every sample: sample 0 is float32 with 1 "
     "dimensions, sample 1 is int32 with 1"),
    (dict(batch_processing=True), lambda b: b[:1],
     r"output 0 must be a list of 2 arrays \(one per sample\), got 1 samples"),
    (dict(output_layouts="AB"), lambda a: a, 'output_layouts\\[0\\] "AB" has 2 dimensions'),
])
def test_bad_results(kw, function, message):
    def build(fn, x):
        out = fn.python_function(x, function=function, **kw)
        return tuple(out) if isinstance(out, list) else out

    with pytest.raises(PipelineError, match=r"dali\.fn\.python_function") as e:
        run(build)
    assert e.match(message)


@pytest.mark.oracle
@pytest.mark.parametrize("function", [lambda a: 3, lambda a: None,
                                      lambda a: a.astype(np.int32) if a.size == 2 else a])
def test_bad_results_fail_in_real_dali_too(function):
    with pytest.raises(RuntimeError):
        run(lambda fn, x: fn.python_function(x, function=function), real=True)


def test_bad_arguments():
    with pytest.raises(TypeError, match="`output_layouts` must be a layout string or a list"):
        run(lambda fn, x: fn.python_function(x, function=lambda a: a, output_layouts=3))
    with pytest.raises(RuntimeError, match='Not all required arguments were specified.*'
                                           '"function"'):
        run(lambda fn, x: fn.python_function(x))
