import numpy as np
import pytest

from dali import _operator, fn, pipeline_def, types
from dali._debug import pipeline as debug_pipeline
from dali._debug.data_node import DataNodeDebug
from dali._graph import context
from dali._schema import Schema


class _ModeDependent(_operator.Operator):
    """Test operator: adds 1 to sample 2 only when it runs in debug mode."""

    schema = Schema("test_only.mode_dependent", inputs=1)

    def infer(self, ws):
        return _operator.Plan([_operator.OutputDesc(ws.inputs[0].shape(), np.int32, "")])

    def run_cpu(self, ws, plan):
        debug = isinstance(context.current_pipeline(), debug_pipeline.DebugPipeline)
        for i, (src, dst) in enumerate(zip(ws.input_samples(), ws.output_samples(),
                                           strict=True)):
            dst[...] = src + (1 if debug and i == 2 else 0)


def source(info):
    return [np.full((2,), 10 * info.iteration + i, np.int32) for i in range(4)]


def test_parity_reports_agreement():
    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
    def pipe():
        return fn.external_source(source=source, batch_info=True)

    report = pipe().check_parity(iterations=2)
    assert report.ok and report.iterations == 2 and report.operators == 1
    assert "agree" in str(report)


def test_parity_finds_the_first_differing_operator():
    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
    def pipe():
        x = fn.external_source(source=source, batch_info=True)
        return _operator.call(_ModeDependent, (x,), {})

    report = pipe().check_parity()
    assert not report.ok
    assert report.display_name == "dali.fn.test_only.mode_dependent"
    assert report.sample == 2 and report.max_abs_diff == 1.0 and report.iteration == 0
    assert "test_parity.py" in report.source
    assert "sample 2" in str(report)


def test_parity_needs_a_pipeline_def_pipeline():
    from dali import Pipeline

    with pytest.raises(RuntimeError, match="@pipeline_def"):
        Pipeline(batch_size=1, num_threads=1).check_parity()


def test_parity_reports_the_first_difference_of_a_deliberately_different_twin():
    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
    def pipe():
        x = fn.external_source(source=source, batch_info=True)
        scale = 3 if isinstance(x, DataNodeDebug) else 2  # the twins differ here on purpose
        y = x * scale
        return fn.cast(y, dtype=types.FLOAT), x

    report = pipe().check_parity(iterations=3)
    line = pipe.__wrapped__.__code__.co_firstlineno + 4
    assert not report.ok
    assert (report.display_name, report.source) == ("dali.fn._arithmetic_generic_op",
                                                    f"{__file__}:{line}")
    # sample 0 holds zeros, so x * 3 == x * 2 there
    assert (report.iteration, report.output, report.sample, report.max_abs_diff) == (0, 0, 1, 1.0)
    assert f"test_parity.py:{line}" in str(report) and "sample 1" in str(report)


def test_parity_finds_a_difference_in_a_later_iteration():
    debug_calls = []

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
    def pipe():
        x = fn.external_source(source=source, batch_info=True)
        data = x
        if isinstance(x, DataNodeDebug):
            debug_calls.append(1)
            data = [np.asarray(t) for t in x.get()]
            if len(debug_calls) == 2:
                data[3] = data[3] + np.array([0, 5], np.int32)
        return fn.cast(data, dtype=types.FLOAT) * 0.5

    report = pipe().check_parity(iterations=3)
    assert not report.ok
    assert report.display_name == "dali.fn.cast"
    assert (report.iteration, report.sample, report.max_abs_diff) == (1, 3, 5.0)
    assert pipe().check_parity(iterations=1).ok


def test_parity_with_tolerance():
    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
    def pipe():
        x = fn.cast(fn.external_source(source=source, batch_info=True), dtype=types.FLOAT)
        return x + (1e-3 if isinstance(x, DataNodeDebug) else 0.0)

    assert not pipe().check_parity().ok
    assert pipe().check_parity(atol=1e-2).ok


def test_parity_matches_random_operators_among_other_operators_on_one_line():
    @pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=4)
    def pipe():
        x = fn.external_source(source=lambda: [np.ones(2, np.float32)] * 3)
        y = 2 * x + fn.random.uniform(range=[0, 1])
        z = (fn.cast(x, dtype=types.INT32) + fn.cast(np.array([1, 2]), dtype=types.INT32)
             + fn.random.normal(shape=[2]) + fn.random.normal(shape=[2]))
        return y, z

    report = pipe().check_parity(iterations=2)
    assert report.ok, str(report)
