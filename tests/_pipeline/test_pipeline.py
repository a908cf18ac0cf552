import numpy as np
import pytest

from dali import Pipeline, _operator, _registry, fn, pipeline_def, types
from dali._executor.errors import PipelineError
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T


class _Plus(_operator.Operator):
    """Test operator: adds `value` (per sample) and counts its runs."""

    schema = Schema("test_only.plus", inputs=1, args=[
        Arg("value", T.FLOAT, 1.0, tensor=True), Arg("required_thing", T.INT32, None),
        Arg("fail_on", T.INT32, -1)])
    runs = 0

    def infer(self, ws):
        tl = ws.inputs[0]
        return _operator.Plan([_operator.OutputDesc(tl.shape(), np.float32, tl.layout())])

    def run_cpu(self, ws, plan):
        type(self).runs += 1
        vals = ws.arg("value")
        for i, (src, dst) in enumerate(zip(ws.input_samples(), ws.output_samples(), strict=True)):
            if int(src.reshape(-1)[0]) == self.args["fail_on"]:
                raise ws.sample_error(i, "this sample is cursed")
            dst[...] = src + vals[i]


class _Needs(_operator.Operator):
    schema = Schema("test_only.needs", inputs=1, args=[Arg("must", T.INT32, REQUIRED)])


def plus(x, **kw):
    return _operator.call(_Plus, (x,), kw)


def source(n=3, shape=(2,), dtype=np.int32, start=0):
    def cb(info):
        return [np.full(shape, start + info.iteration * n + i, dtype) for i in range(n)]
    return cb


def first_values(tl):
    return [int(np.array(t).reshape(-1)[0]) for t in tl]


# -- definition styles ---------------------------------------------------------------------------

def test_three_definition_styles_agree():
    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def decorated():
        return plus(fn.external_source(source=source(), batch_info=True), value=2.0)

    explicit = Pipeline(batch_size=3, num_threads=1, device_id=None)
    with explicit:
        explicit.set_outputs(plus(fn.external_source(source=source(), batch_info=True),
                                  value=2.0))

    class Sub(Pipeline):
        def define_graph(self):
            return [plus(fn.external_source(source=source(), batch_info=True), value=2.0)]

    sub = Sub(batch_size=3, num_threads=1, device_id=None)
    for p in (decorated(), explicit, sub):
        out, = p.run()
        assert out.dtype == types.FLOAT
        np.testing.assert_array_equal(out.as_array(), [[2, 2], [3, 3], [4, 4]])


def test_pipeline_def_kwargs_override_and_shadowing(capsys):
    @pipeline_def(batch_size=5, num_threads=1, device_id=None)
    def fixed(batch_size, k=0):
        assert batch_size == 7
        return types.Constant(np.array([k], np.int32), device="cpu")

    p = fixed(batch_size=7, k=3, num_threads=2)
    assert "the argument `batch_size` shadows a Pipeline constructor argument" in \
        capsys.readouterr().out
    assert p.max_batch_size == 5 and p.num_threads == 2
    out, = p.run()
    assert out.as_array().tolist() == [[3]] * 5


def test_pipeline_def_bare_and_called_forms():
    @pipeline_def
    def bare():
        return types.Constant(np.array([1], np.uint8), device="cpu")

    assert bare(batch_size=2, num_threads=1, device_id=None).run()[0].as_array().shape == (2, 1)
    assert bare._is_pipeline_def


def test_pipeline_def_rejects_var_kwargs_and_unknown():
    with pytest.raises(TypeError, match="variadic keyword argument `\\*\\*kw`"):
        pipeline_def(lambda **kw: None)(batch_size=1)

    @pipeline_def
    def f():
        return types.Constant(np.array([1]), device="cpu")

    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        f(batch_size=1, bogus=2)


def test_current_pipeline_stack():
    assert Pipeline.current() is None
    seen = []

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def f():
        seen.append(Pipeline.current())
        return types.Constant(np.array([1]), device="cpu")

    p = f()
    assert seen == [p] and Pipeline.current() is None
    q = Pipeline(batch_size=1, num_threads=1)
    Pipeline.push_current(q)
    assert Pipeline.current() is q
    assert Pipeline.pop_current() is q and Pipeline.current() is None


# -- graph building ------------------------------------------------------------------------------

def test_pruning_preserve_and_sinks():
    _Plus.runs = 0
    p = Pipeline(batch_size=2, num_threads=1, device_id=None, prefetch_queue_depth=1)
    with p:
        x = fn.external_source(source=source(2), batch_info=True)
        plus(x, value=5.0)                      # pruned
        plus(x, value=6.0, preserve=True)       # kept
        sunk = plus(x, value=7.0)
        p.add_sink(sunk)
        p.set_outputs(x)
    p.run()
    assert _Plus.runs == 2


def test_outputs_may_be_constants_and_build_is_optional():
    p = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p:
        p.set_outputs(fn.external_source(source=source(2), batch_info=True), 5, 2.5)
    x, five, half = p.run()
    assert five.dtype == types.INT32 and five.as_array().tolist() == [5, 5]
    assert half.dtype == types.FLOAT


def test_build_errors():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def nested():
        return [fn.external_source(source=source(2), batch_info=True)]

    with pytest.raises(TypeError, match="nested `DataNode`. Missing list/tuple expansion"):
        nested().build()

    with pytest.raises(NotImplementedError):
        Pipeline(batch_size=2, num_threads=1).build()

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def dup():
        a = fn.external_source(source=source(2), batch_info=True, name="a")
        return plus(a, name="x"), plus(a, name="x")

    with pytest.raises(RuntimeError, match="non-unique names"):
        dup().build()

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def missing():
        return _operator.call(_Needs, (fn.external_source(source=source(2), batch_info=True),),
                              {})

    p = missing()  # definition succeeds, like DALI
    with pytest.raises(RuntimeError, match='Not all required arguments were specified for op '
                                           '"Needs".*"must"'):
        p.build()

    with pytest.raises(ValueError, match="The batch size must be set"):
        Pipeline(num_threads=1).build()


def test_gpu_without_backend_is_a_clear_build_error():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def f():
        return fn.external_source(source=source(2), batch_info=True).gpu()

    p = f()
    with pytest.raises(RuntimeError, match="requires a CUDA-capable GPU.*no GPU backend"):
        p.build()


def test_auto_names_follow_dali():
    with Pipeline(batch_size=1, num_threads=1) as p:
        a = fn.external_source(source=source(1), batch_info=True)
        b = plus(a)
        c = types.Constant(np.array([1, 2]), device="cpu")
    assert (a.name, b.name, c.name) == ("__ExternalSource_0", "__Plus_1", "__Constant_2")
    assert repr(a) == 'DataNode(name="__ExternalSource_0", device="cpu")'
    assert p is not None
    detached = plus(a)
    assert "_detached_" in detached.name


def test_unknown_argument_names_closest_match():
    with pytest.raises(KeyError, match='"valeu" is not defined for operator "Plus".*'
                                       "Did you mean `value`"):
        plus(None, valeu=1)


def test_arguments_checked_at_definition():
    with Pipeline(batch_size=1, num_threads=1):
        x = fn.external_source(source=source(1), batch_info=True)
        with pytest.raises(ValueError, match="could not convert string to float"):
            plus(x, value="abc")
        with pytest.raises(ValueError, match="expects from 1 to 1 inputs, but received 2"):
            _operator.call(_Plus, (x, x), {})
        with pytest.raises(TypeError, match="should not be a `DataNode`"):
            plus(x, fail_on=x)
        with pytest.raises(TypeError, match='"DataNode" was used in conditional context'):
            bool(x)


# -- running -------------------------------------------------------------------------------------

def test_properties_expose_constructor_arguments():
    p = Pipeline(batch_size=4, num_threads=3, device_id=None, seed=11, exec_pipelined=False,
                 prefetch_queue_depth=1, exec_async=False, bytes_per_sample=100,
                 enable_memory_stats=True, py_num_workers=2, output_dtype=types.FLOAT)
    assert (p.max_batch_size, p.num_threads, p.device_id, p.seed) == (4, 3, None, 11)
    assert (p.exec_pipelined, p.exec_async, p.prefetch_queue_depth) == (False, False, 1)
    assert p.exec_dynamic is False and p.exec_separated is False
    assert (p.bytes_per_sample, p.enable_memory_stats, p.py_num_workers) == (100, True, 2)
    with pytest.warns(DeprecationWarning, match="max_batch_size"):
        assert p.batch_size == 4
    d = Pipeline(batch_size=1, num_threads=1, prefetch_queue_depth={"cpu_size": 2,
                                                                    "gpu_size": 3})
    assert (d.cpu_queue_size, d.gpu_queue_size, d.exec_separated) == (2, 3, True)
    assert Pipeline(batch_size=1, num_threads=1).exec_dynamic is True
    with pytest.raises(ValueError, match="separated queues"):
        Pipeline(batch_size=1, prefetch_queue_depth={"cpu_size": 2, "gpu_size": 2},
                 exec_async=False)
    with pytest.warns(UserWarning, match="negative seed"):
        assert Pipeline(batch_size=1, seed=-3).seed is None


def test_mixing_api_styles_is_refused():
    def make():
        p = Pipeline(batch_size=2, num_threads=1, device_id=None)
        with p:
            p.set_outputs(fn.external_source(source=source(2), batch_info=True))
        return p

    p = make()
    p.run()
    with pytest.raises(RuntimeError, match="Mixing pipeline API type. Currently used: "
                                           "PipelineAPIType.BASIC"):
        p.schedule_run()
    p = make()
    p.schedule_run()
    with pytest.raises(RuntimeError, match="PipelineAPIType.SCHEDULED, but trying to use "
                                           "PipelineAPIType.BASIC"):
        p.run()


def test_scheduled_api_prefetches_then_runs_one():
    calls = []

    def cb(info):
        calls.append(info.iteration)
        return [np.full((1,), info.iteration, np.int32)]

    p = Pipeline(batch_size=1, num_threads=1, device_id=None, prefetch_queue_depth=3)
    with p:
        p.set_outputs(fn.external_source(source=cb, batch_info=True))
    with pytest.raises(StopIteration):
        p.outputs()            # nothing scheduled yet
    p.schedule_run()
    assert calls == [0, 1, 2]
    assert first_values(p.share_outputs()[0]) == [0]
    p.release_outputs()
    p.schedule_run()
    assert calls == [0, 1, 2, 3]
    assert [first_values(p.outputs()[0]) for _ in range(3)] == [[1], [2], [3]]


@pytest.mark.parametrize("exec_async,exec_pipelined", [(True, True), (True, False),
                                                       (False, True), (False, False)])
def test_stop_iteration_drains_then_resets(exec_async, exec_pipelined):
    infos = []

    def cb(info):
        infos.append(info)
        if info.iteration == 3:
            raise StopIteration
        return [np.full((1,), info.iteration, np.int32)]

    p = Pipeline(batch_size=1, num_threads=1, device_id=None, prefetch_queue_depth=2,
                 exec_async=exec_async, exec_pipelined=exec_pipelined)
    with p:
        p.set_outputs(fn.external_source(source=cb, batch_info=True))
    got = []
    with pytest.raises(StopIteration):
        while True:
            got.append(first_values(p.run()[0])[0])
    assert got == [0, 1, 2]
    with pytest.raises(StopIteration):
        p.run()
    p.reset()
    assert first_values(p.run()[0]) == [0]
    assert infos[-1].epoch_idx == 1 or infos[-2] == types.BatchInfo(0, 1)
    assert types.BatchInfo(0, 1) in infos


def test_run_with_inputs_and_feed_input():
    p = Pipeline(batch_size=3, num_threads=1, device_id=None, prefetch_queue_depth=1)
    with p:
        p.set_outputs(plus(fn.external_source(name="data"), value=1.0))
    out, = p.run(data=[np.zeros(2, np.int32), np.ones(2, np.int32)])
    assert len(out) == 2  # a batch smaller than max_batch_size
    np.testing.assert_array_equal(out.as_array(), [[1, 1], [2, 2]])
    p.feed_input("data", np.full((3, 2), 5, np.int32))
    np.testing.assert_array_equal(p.run()[0].as_array(), np.full((3, 2), 6))
    with pytest.raises(KeyError, match='Could not find an input operator with name "nope"'):
        p.feed_input("nope", [np.zeros(1)])

    s = Pipeline(batch_size=1, num_threads=1, device_id=None)
    with s:
        listed = fn.external_source(source=lambda: ([np.zeros(1)],), num_outputs=1)
        s.set_outputs(*listed, fn.external_source(source=lambda: [np.zeros(1)], name="src"))
    assert isinstance(listed, list) and len(listed) == 1     # an explicit num_outputs: a list
    with pytest.raises(RuntimeError, match="Cannot use `feed_input` on the external source "
                                           "'src' with a `source` argument specified"):
        s.feed_input("src", [np.zeros(1)])

    q = Pipeline(batch_size=1, num_threads=1, device_id=None)
    with q:
        q.set_outputs(fn.external_source(name="data"))
    with pytest.raises(RuntimeError, match="prefetch_queue_depth"):
        q.run(data=[np.zeros(1)])


def test_output_specs_are_validated():
    p = Pipeline(batch_size=2, num_threads=1, device_id=None, output_dtype=types.INT32)
    with p:
        p.set_outputs(plus(fn.external_source(source=source(2), batch_info=True)))
    with pytest.raises(RuntimeError, match="Data type in the output_idx=0 does not match. "
                                           "Expected: int32. Received: float."):
        p.run()
    q = Pipeline(batch_size=2, num_threads=1, device_id=None, output_ndim=[1],
                 output_layout="X")
    with q:
        q.set_outputs(fn.external_source(source=source(2), batch_info=True, layout="X"))
    assert q.run()[0].layout() == "X"


# -- errors --------------------------------------------------------------------------------------

def test_operator_error_names_operator_line_and_sample_then_recovers():
    p = Pipeline(batch_size=3, num_threads=1, device_id=None)
    with p:
        p.set_outputs(plus(fn.external_source(source=source(3), batch_info=True), fail_on=4))
    out, = p.run()                             # samples 0, 1, 2
    assert first_values(out) == [1, 2, 3]
    with pytest.raises(RuntimeError) as info:
        p.run()                                # samples 3, 4, 5: sample 1 fails
    err = info.value
    assert isinstance(err, PipelineError) and err.sample == 1
    msg = str(err)
    assert "Error in CPU operator `dali.fn.test_only.plus`" in msg
    assert "this sample is cursed" in msg and "in sample 1 of the batch" in msg
    assert "test_pipeline.py" in msg
    p.reset()
    assert len(p.run()[0]) == 3


def test_python_callback_errors_propagate_unchanged():
    def cb(info):
        raise ValueError("callback boom")

    p = Pipeline(batch_size=1, num_threads=1, device_id=None)
    with p:
        p.set_outputs(fn.external_source(source=cb, batch_info=True))
    with pytest.raises(ValueError, match="callback boom"):
        p.run()


def test_public_import_paths():
    import dali.pipeline
    from dali.data_node import DataNode

    assert dali.pipeline.Pipeline is Pipeline and dali.pipeline.DataNode is DataNode
    assert dali.pipeline.pipeline_def is pipeline_def
    assert dali.ops.ExternalSource.__name__ == "ExternalSource"
    assert _registry.get("external_source").schema.class_name == "ExternalSource"
