"""Debug mode with every kind of external_source: the same batches, end of data and reset as
graph mode."""

import numpy as np
import pytest

from dali import fn, pipeline_def, types
from dali.pipeline import experimental

BS = 3


def batch(k):
    return [np.full((2,), 10 * k + i, np.int32) for i in range(BS)]


def per_sample(info):
    return np.array([info.idx_in_epoch, info.idx_in_batch, info.iteration, info.epoch_idx],
                    np.int64)


def gen_batches():
    for k in range(3):
        yield batch(k)


def counter():
    state = {"k": 0}

    def next_batch():
        state["k"] += 1
        return batch(state["k"])

    return next_batch


# Each case: (name, factory of the external_source call).  Factories build fresh state, so that
# the graph twin and the debug twin read the same data.
SOURCES = {
    "no_argument": lambda: fn.external_source(source=counter()),
    "iteration_index": lambda: fn.external_source(source=lambda i: batch(i)),
    "batch_info": lambda: fn.external_source(
        source=lambda info: batch(info.iteration + 100 * info.epoch_idx), batch_info=True),
    "sample_info": lambda: fn.external_source(source=per_sample, batch=False),
    "per_sample_no_argument": lambda: fn.external_source(
        source=lambda: np.array([7], np.uint8), batch=False),
    "list_of_batches": lambda: fn.external_source(source=[batch(0), batch(1)]),
    "generator_function": lambda: fn.external_source(source=gen_batches),
    "generator_object": lambda: fn.external_source(source=gen_batches()),
    "cycle_quiet": lambda: fn.external_source(source=[batch(0), batch(1)], cycle="quiet"),
    "cycle_raise": lambda: fn.external_source(source=gen_batches, cycle="raise"),
    "per_sample_iterable": lambda: fn.external_source(
        source=[np.array([i], np.int16) for i in range(7)], batch=False),
    "array_batch": lambda: fn.external_source(
        source=lambda i: np.arange(BS * 4, dtype=np.float32).reshape(BS, 4) + i),
    "parallel": lambda: fn.external_source(source=per_sample, batch=False, parallel=True),
}


def outputs(p, epochs=2, limit=5):
    """The batches of `epochs` epochs (at most `limit` each), as nested lists."""
    seen = []
    for _ in range(epochs):
        epoch = []
        for _ in range(limit):
            try:
                epoch.append([np.asarray(tl.as_array()).tolist() for tl in p.run()])
            except StopIteration:
                break
        seen.append(epoch)
        p.reset()
    return seen


def twins(body, **kw):
    args = dict(batch_size=BS, num_threads=1, device_id=None, seed=5, **kw)
    return (pipeline_def(body)(**args),
            experimental.pipeline_def(body, debug=True)(**args))


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_debug_mode_reads_every_source_kind_like_graph_mode(kind):
    def body():
        return SOURCES[kind]()

    graph, debug = twins(body, prefetch_queue_depth=1)
    expected = outputs(graph)
    assert expected[0], "the source gave no data"
    assert outputs(debug) == expected


def test_several_outputs():
    def body():
        a, b = fn.external_source(source=lambda i: (batch(i), batch(i + 5)), num_outputs=2)
        return b, a

    graph, debug = twins(body)
    for _ in range(2):
        for g, d in zip(graph.run(), debug.run(), strict=True):
            np.testing.assert_array_equal(g.as_array(), d.as_array())


def test_explicit_num_outputs_gives_a_list_in_both_modes():
    def body():
        one = fn.external_source(source=lambda i: (batch(i),), num_outputs=1)
        kinds.append(type(one))
        return tuple(one)

    kinds = []
    graph, debug = twins(body)
    np.testing.assert_array_equal(graph.run()[0].as_array(), debug.run()[0].as_array())
    assert kinds == [list, list]


def test_feed_input_before_and_between_runs():
    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        return fn.external_source(name="data", layout="W") * 2

    p = pipe()
    p.feed_input("data", [np.array([1, 2], np.int32), np.array([3, 4], np.int32)])
    out, = p.run()
    assert out.as_array().tolist() == [[2, 4], [6, 8]]
    p.feed_input("data", np.array([[5], [6]], np.int32))
    out, = p.run()
    assert out.as_array().tolist() == [[10], [12]]


def test_run_with_pipeline_inputs():
    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True,
                               prefetch_queue_depth=1)
    def pipe():
        return fn.external_source(name="x") + 1

    out, = pipe().run(x=[np.array([1], np.int32), np.array([2], np.int32)])
    assert out.as_array().tolist() == [[2], [3]]


def test_variable_batch_size_from_the_source():
    sizes = iter([3, 1, 2])

    @experimental.pipeline_def(batch_size=3, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(source=lambda: [np.zeros(1, np.int32)] * next(sizes))
        return x, fn.random.uniform(seed=1)

    p = pipe()
    assert [(len(x), len(u)) for x, u in (p.run() for _ in range(3))] == [(3, 3), (1, 1),
                                                                           (2, 2)]


def test_feed_input_errors():
    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def pipe():
        a = fn.external_source(name="fed")
        b = fn.external_source(source=lambda: [np.zeros(1, np.int32)], name="called")
        return a, b, fn.cast(a, dtype=types.FLOAT, name="cast")

    p = pipe()
    p.feed_input("fed", [np.ones(1, np.int32)])
    p.run()
    with pytest.raises(KeyError, match='Could not find an input operator with name "nothing"'):
        p.feed_input("nothing", [np.ones(1, np.int32)])
    with pytest.raises(KeyError, match='Could not find an input operator with name "cast"'):
        p.feed_input("cast", [np.ones(1, np.int32)])
    with pytest.raises(RuntimeError, match="Cannot use `feed_input` on the external source "
                                           "'called' with a `source` argument"):
        p.feed_input("called", [np.ones(1, np.int32)])
    assert p.executor_statistics() == {}


def test_batch_size_must_be_uniform_across_an_iteration():
    def two_sources():
        a = fn.external_source(source=lambda: [np.zeros(1, np.int32)] * 3)
        b = fn.external_source(source=lambda: [np.zeros(1, np.int32)] * 2)
        return a, b

    def source_then_list():
        a = fn.external_source(source=lambda: [np.zeros(1, np.int32)] * 2, name="es")
        return a, fn.cast([np.zeros(1, np.int32)] * 3, dtype=types.FLOAT, name="c")

    def list_first():
        x = fn.cast([np.zeros(1, np.int32)] * 2, dtype=types.FLOAT)
        return x, fn.random.uniform(seed=1)

    make = experimental.pipeline_def(debug=True, batch_size=3, num_threads=1, device_id=None)
    with pytest.raises(RuntimeError, match="Batch size must be uniform across an iteration. "
                                           "External Source operator returned batch size: 2, "
                                           "expected: 3"):
        make(two_sources)().run()
    with pytest.raises(RuntimeError, match="Input 0 for operator 'c' has batch size = 3. "
                                           "Expected batch size = 2 from: 'es'"):
        make(source_then_list)().run()
    x, u = make(list_first)().run()
    assert (len(x), len(u)) == (2, 2)


def test_named_source_with_num_outputs_is_rejected_in_debug_mode():
    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        return tuple(fn.external_source(lambda: (batch(0), batch(1)), num_outputs=2, name="y"))

    with pytest.raises(RuntimeError) as e:
        pipe().run()
    assert str(e.value) == "``num_outputs`` is not compatible with named `dali.fn.external_source`."
