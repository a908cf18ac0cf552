import numpy as np
import pytest

from dali import fn, pipeline_def, types
from dali._debug.data_node import DataNodeDebug
from dali.pipeline import DataNode, experimental
from dali.tensors import TensorListCPU


def counting_source(info):
    return [np.full((3,), 10 * info.iteration + i, np.int32) for i in range(4)]


def test_operators_run_eagerly_and_values_can_be_inspected():
    seen = []

    @experimental.pipeline_def(batch_size=4, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(source=counting_source, batch_info=True)
        assert isinstance(x, DataNodeDebug)
        seen.append(np.array(x.get()[1]).tolist())
        return x, 7

    p = pipe()
    x, seven = p.run()
    assert seen == [[1, 1, 1]]
    assert x.as_array()[:, 0].tolist() == [0, 1, 2, 3]
    assert seven.as_array().tolist() == [7, 7, 7, 7]
    p.run()
    assert seen[-1] == [11, 11, 11]


def test_debug_and_graph_mode_give_the_same_outputs():
    def body():
        x = fn.external_source(source=counting_source, batch_info=True)
        return x, types.Constant(np.array([1.5, 2.5], np.float32), device="cpu")

    g = pipeline_def(body)(batch_size=4, num_threads=1, device_id=None)
    d = experimental.pipeline_def(body, debug=True)(batch_size=4, num_threads=1,
                                                    device_id=None)
    for _ in range(3):
        for a, b in zip(g.run(), d.run(), strict=True):
            np.testing.assert_array_equal(a.as_array(), b.as_array())


def test_non_dali_inputs_go_straight_into_operators():
    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        a = fn.external_source(source=lambda: [np.ones(2, np.uint8)] * 2)
        modified = [np.asarray(s) * 3 for s in a.get()]
        b = fn._conditional.not_(TensorListCPU([np.array(True), np.array(False)]))
        return fn.external_source(source=lambda: modified), b

    out, b = pipe().run()
    assert out.as_array().tolist() == [[3, 3], [3, 3]]
    assert b.as_array().tolist() == [False, True]


def test_changing_operator_order_is_an_error():
    calls = {"n": 0}

    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def pipe():
        calls["n"] += 1
        if calls["n"] == 1:
            return fn.external_source(source=lambda: [np.zeros(1)])
        return types.Constant(np.array([1]), device="cpu")

    p = pipe()
    p.run()
    with pytest.raises(RuntimeError, match="Unexpected operator 'constant'. Debug mode does not "
                                           "support changing the order of operators"):
        p.run()


def test_changed_constant_argument_is_an_error():
    values = iter([1, 2])

    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def pipe():
        return fn.external_source(source=lambda: [np.zeros(1)], prefetch_queue_depth=next(values))

    p = pipe()
    p.run()
    with pytest.raises(RuntimeError, match="Argument 'prefetch_queue_depth' for operator "
                                           "'__ExternalSource_0' unexpectedly changed value "
                                           "from '1' to '2'"):
        p.run()


def test_changed_input_type_is_an_error():
    dtypes = iter([np.uint8, np.float32])

    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def pipe():
        dt = next(dtypes)
        return fn._conditional.not_(TensorListCPU([np.array(1, dt)]))

    p = pipe()
    p.run()
    with pytest.raises(RuntimeError, match="Input 0 for operator '__Not__0' has dtype"):
        p.run()


def test_stop_iteration_and_reset():
    def cb(info):
        if info.iteration == 2:
            raise StopIteration
        return [np.full((1,), info.iteration, np.int32)]

    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def pipe():
        return fn.external_source(source=cb, batch_info=True)

    p = pipe()
    assert [int(p.run()[0].as_array()[0, 0]) for _ in range(2)] == [0, 1]
    with pytest.raises(StopIteration):
        p.run()
    p.reset()
    assert int(p.run()[0].as_array()[0, 0]) == 0


def test_with_statement_and_nested_outputs_are_refused():
    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def pipe():
        return [fn.external_source(source=lambda: [np.zeros(1)])]

    p = pipe()
    with pytest.raises(RuntimeError, match="`with` statement is not supported"):
        with p:
            pass
    with pytest.raises(TypeError, match="nested `DataNodeDebug`"):
        p.run()


def test_feed_input_in_debug_mode():
    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        return fn.external_source(name="data")

    p = pipe()
    p.feed_input("data", [np.array([1, 2]), np.array([3, 4])])
    assert p.run()[0].as_array().tolist() == [[1, 2], [3, 4]]


def test_debug_node_prints_its_data():
    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(source=lambda: [np.array([5, 6], np.int16)])
        text.append(str(x))
        return x

    text = []
    pipe().run()
    assert text[0].startswith('DataNodeDebug(\n    name="__ExternalSource_0",\n    data=')
    assert "[5 6]" in text[0]


# -- the DataNodeDebug API -----------------------------------------------------------------------
def image_source():
    return [np.arange(24, dtype=np.uint8).reshape(2, 4, 3) + i for i in range(3)]


def test_data_node_debug_behaves_like_a_data_node():
    seen = {}

    @experimental.pipeline_def(batch_size=3, num_threads=2, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(source=image_source, layout="HWC")
        seen["first"] = np.array(x.get()[0])
        y = x + 1
        z = x[1, 1:3]
        s = DataNode.shape(x)     # the operator; x.shape() is the list of shapes
        f = fn.flip(x, horizontal=1)
        seen["kinds"] = {type(v) for v in (y, z, s, f)}
        seen["y"] = y.get().dtype, y.get().layout()
        seen["z"] = z.get().layout(), z.get().shape()
        return y, z, s, f, x.cpu()

    y, z, s, f, same = pipe().run()
    data = image_source()
    np.testing.assert_array_equal(seen["first"], data[0])
    assert seen["kinds"] == {DataNodeDebug}
    assert seen["y"] == (types.INT32, "HWC")
    assert seen["z"] == ("WC", [(2, 3)] * 3)
    for i in range(3):
        np.testing.assert_array_equal(np.asarray(y[i]), data[i].astype(np.int32) + 1)
        np.testing.assert_array_equal(np.asarray(z[i]), data[i][1, 1:3])
        np.testing.assert_array_equal(np.asarray(f[i]), data[i][:, ::-1])
        np.testing.assert_array_equal(np.asarray(same[i]), data[i])
    assert s.as_array().tolist() == [[2, 4, 3]] * 3


def test_gpu_without_a_gpu_backend_fails_at_the_call():
    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(source=lambda: [np.zeros(2, np.uint8)], name="x")
        return x.gpu()

    with pytest.raises(RuntimeError, match='Cannot move "x" to the GPU: debug mode moves data '
                                           "at once, and no GPU backend is available"):
        pipe().run()


def test_outputs_can_be_modified_between_operators():
    @experimental.pipeline_def(batch_size=3, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(source=image_source, layout="HWC")
        edited = [np.asarray(t).astype(np.float32) * 0.5 for t in x.get()]
        edited[1][0, 0, 0] = -7
        return (fn.cast(edited, dtype=types.FLOAT64),
                fn.cast(TensorListCPU(edited), dtype=types.FLOAT64))

    y, y2 = pipe().run()
    data = image_source()
    for i in range(3):
        ref = data[i].astype(np.float32) * 0.5
        if i == 1:
            ref[0, 0, 0] = -7
        np.testing.assert_array_equal(np.asarray(y[i]), ref)
        np.testing.assert_array_equal(np.asarray(y2[i]), ref)


def test_constant_inputs_and_array_arguments_are_broadcast():
    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(source=lambda: [np.array([1, 2], np.int32)] * 2)
        per_sample = [np.array(30.0, np.float32), np.array(-30.0, np.float32)]
        return (fn.cast(np.array([1.5, 2.5], np.float32), dtype=types.INT32),
                fn.cast(x, dtype=types.FLOAT) * np.float32(2),
                fn.rotate(np.ones((4, 4, 1), np.uint8), angle=per_sample, keep_size=True))

    c, x2, r = pipe().run()
    assert c.as_array().tolist() == [[2, 3], [2, 3]]
    assert x2.as_array().tolist() == [[2.0, 4.0], [2.0, 4.0]]
    assert len(r) == 2 and r[0].shape() == [4, 4, 1]


def test_every_pipeline_argument_is_accepted():
    kwargs = dict(batch_size=2, num_threads=3, device_id=None, seed=17, exec_pipelined=False,
                  prefetch_queue_depth={"cpu_size": 3, "gpu_size": 2}, exec_async=True,
                  bytes_per_sample=100, set_affinity=False, max_streams=-1,
                  default_cuda_stream_priority=0, enable_memory_stats=True,
                  enable_checkpointing=False, py_num_workers=2, py_start_method="spawn",
                  py_callback_pickler=None, output_dtype=types.INT32, output_ndim=1,
                  output_layout="W", exec_dynamic=False, stream_policy=None, concurrency=None)

    @experimental.pipeline_def(debug=True, **kwargs)
    def pipe():
        return fn.external_source(source=lambda: [np.array([3], np.int32)] * 2, layout="W")

    with pytest.warns(Warning, match="is deprecated and has no effect"):
        p = pipe()
    assert (p.max_batch_size, p.num_threads, p.seed, p.exec_pipelined, p.cpu_queue_size,
            p.gpu_queue_size, p.py_num_workers) == (2, 3, 17, False, 3, 2, 2)
    assert p.run()[0].as_array().tolist() == [[3], [3]]
    bad = experimental.pipeline_def(debug=True, **{**kwargs, "output_ndim": 2})(pipe.__wrapped__)
    with pytest.warns(Warning, match="is deprecated and has no effect"):
        bad_pipe = bad()
    with pytest.raises(RuntimeError, match="Number of dimensions in the output_idx=0 does not "
                                           "match"):
        bad_pipe.run()


def test_debug_flag_at_decoration_and_at_the_call():
    def body():
        x = fn.external_source(source=lambda: [np.zeros(1, np.int32)])
        kinds.append(type(x))
        return x

    kinds = []
    experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None)(body)(
        debug=True).run()
    experimental.pipeline_def(body, batch_size=1, num_threads=1, device_id=None, debug=True)(
        debug=False).run()
    experimental.pipeline_def(debug=True)(body)(batch_size=1, num_threads=1,
                                                device_id=None).run()
    assert kinds == [DataNodeDebug, DataNode, DataNodeDebug]


# -- operator instances --------------------------------------------------------------------------
def test_operators_are_cached_by_call_site_and_position():
    created = []

    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True, seed=1)
    def pipe():
        outs = []
        for _ in range(2):
            u = fn.random.uniform(range=[0, 1])
            created.append(u.name)
            outs.append(u)
        return tuple(outs)

    p = pipe()
    first = p.run()
    second = p.run()
    assert created[:2] == created[2:] and created[0] != created[1]
    assert not np.array_equal(first[0].as_array(), first[1].as_array())
    assert not np.array_equal(first[0].as_array(), second[0].as_array())


def test_same_calls_in_another_order_are_an_error():
    order = [("a", "b"), ("b", "a")]

    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(source=lambda: [np.zeros((2, 2, 1), np.uint8)], layout="HWC")
        ops = {"a": lambda: fn.flip(x), "b": lambda: fn.rotate(x, angle=90)}
        return tuple(ops[k]() for k in order.pop(0))

    p = pipe()
    p.run()
    with pytest.raises(RuntimeError, match="Unexpected operator 'rotate'. Debug mode does not "
                                           "support changing the order"):
        p.run()


@pytest.mark.parametrize("second, message", [
    (("x", {"horizontal": 1, "vertical": 1}),
     "Trying to use operator 'c' with different arguments than when it was built"),
    (("x", {"horizontal": 0}),
     "Argument 'horizontal' for operator 'c' unexpectedly changed value from '1' to '0'"),
    (("x", {"horizontal": "flag"}),
     "Trying to use operator 'c' with different arguments than when it was built"),
    (("array", {"horizontal": 1}),
     "Input 0 for operator 'c' is a constant but was a batch when created"),
    (("row", {"horizontal": 1}), "Input 0 for operator 'c' has ndim = 2, expected: 3"),
    (("renamed", {"horizontal": 1}), "Input 0 for operator 'c' has layout = CHW, expected: HWC"),
    (("float", {"horizontal": 1}), "Input 0 for operator 'c' has dtype = "),
])
def test_each_call_is_checked_against_the_first(second, message):
    calls = iter([("x", {"horizontal": 1}), second])

    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(source=lambda: [np.zeros((2, 2, 1), np.int32)] * 2, layout="HWC")
        prepared = {"x": x, "row": x[0], "renamed": fn.reshape(x, layout="CHW"),
                    "float": fn.cast(x, dtype=types.FLOAT),
                    "array": np.zeros((2, 2, 1), np.int32),
                    "flag": fn.random.coin_flip()}
        which, kwargs = next(calls)
        kwargs = {k: prepared.get(v, v) for k, v in kwargs.items()}
        return fn.flip(prepared[which], **kwargs, name="c")

    p = pipe()
    p.run()
    with pytest.raises(RuntimeError, match=message):
        p.run()


def test_input_dtype_change_is_an_error():
    dtypes = iter([np.int32, np.int64])

    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def pipe():
        dt = next(dtypes)
        return fn.cast(TensorListCPU([np.zeros(2, dt)]), dtype=types.INT8, name="c")

    p = pipe()
    p.run()
    with pytest.raises(RuntimeError, match="Input 0 for operator 'c' has dtype = "):
        p.run()


def test_torch_tensors_go_straight_into_operators():
    torch = pytest.importorskip("torch")

    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        batch = [torch.tensor([1.5, 2.5]), torch.tensor([3.5, -1.0])]
        return (fn.cast(batch, dtype=types.INT32),
                fn.cast(torch.tensor([7, 8], dtype=torch.int16), dtype=types.FLOAT))

    per_sample, broadcast = pipe().run()
    assert per_sample.as_array().tolist() == [[2, 3], [4, -1]]
    assert broadcast.as_array().tolist() == [[7.0, 8.0], [7.0, 8.0]]


def test_tensor_cpu_is_a_constant_input():
    @experimental.pipeline_def(batch_size=3, num_threads=1, device_id=None, debug=True)
    def pipe():
        sample = TensorListCPU([np.array([4, 5], np.uint8)])[0]
        return fn.cast(sample, dtype=types.INT16)

    out, = pipe().run()
    assert out.dtype == types.INT16 and out.as_array().tolist() == [[4, 5]] * 3


def test_a_first_iteration_that_fails_part_way_can_be_retried():
    fail = [True]

    def body():
        u = fn.random.uniform(range=[0, 1], shape=[2])
        names.append(u.name)
        if fail.pop(0) if fail else False:
            raise KeyError("user code fails")
        return u, fn.random.normal()

    names = []
    factory = experimental.pipeline_def(body, batch_size=2, num_threads=1, device_id=None,
                                        seed=9, debug=True)
    p = factory()
    with pytest.raises(KeyError, match="user code fails"):
        p.run()
    retried = p.run()
    fresh = factory().run()
    assert names[0] == names[1]
    for a, b in zip(retried, fresh, strict=True):
        np.testing.assert_array_equal(a.as_array(), b.as_array())


def test_plain_pipeline_def_has_no_debug_mode():
    def body():
        x = fn.external_source(source=lambda: [np.zeros(1, np.int32)])
        kinds.append(type(x))
        return x

    kinds = []
    pipeline_def(body)(batch_size=1, num_threads=1, device_id=None, debug=True).run()
    assert kinds == [DataNode]  # dropped, as DALI does
    with pytest.raises(TypeError, match="unexpected keyword argument 'debug'"):
        pipeline_def(body, debug=True)(batch_size=1, num_threads=1, device_id=None)


def test_shape_of_an_intermediate_result_is_per_sample_shapes():
    seen = []

    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(source=lambda: [np.zeros((2, 3), np.float32),
                                               np.zeros((4, 1), np.float32)]) + 1
        seen.append((x.shape(), type(x.get()).__name__))
        return x

    pipe().run()
    assert seen == [([(2, 3), (4, 1)], "TensorListCPU")]


def test_check_parity_on_a_debug_pipeline():
    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True, seed=5)
    def pipe():
        return fn.random.uniform(shape=[3]) * 2

    report = pipe().check_parity(iterations=2)
    assert report.ok and report.iterations == 2 and report.operators == 2
