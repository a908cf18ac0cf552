import numpy as np
import pytest

from dali import fn, pipeline_def, types
from dali._debug.data_node import DataNodeDebug
from dali.pipeline import experimental
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
