"""The per-iteration state of debug mode (dali._debug.iteration): made afresh every iteration."""

import numpy as np
import pytest

from dali import fn, pipeline_def
from dali._debug import iteration
from dali.pipeline import experimental

SIZES = [2, 5, 1]


def test_the_first_batch_fixes_the_batch_size():
    state = iteration.IterationState(index=0, epoch=0, first_id=10, batch_size=8)
    state.batch_input(3, "Input 0", "__Flip_1")
    assert (state.batch_size, state.fixed_by) == (3, "__Flip_1")
    assert state.root_ids().tolist() == [10, 11, 12]
    with pytest.raises(RuntimeError, match="Input 1 for operator '__Cast_2' has batch size = 4. "
                                           "Expected batch size = 3 from: '__Flip_1'"):
        state.batch_input(4, "Input 1", "__Cast_2")
    with pytest.raises(RuntimeError, match="External Source operator returned batch size: 5, "
                                           "expected: 3"):
        state.fed(5, "src")


def body():
    sizes = iter(SIZES * 2)

    def source():
        n = next(sizes)
        return [np.full((2,), 10 * n + i, np.int32) for i in range(n)]

    x = fn.external_source(source=source)
    return x + 1, fn.random.uniform(range=[0, 1], shape=[2]), 7


def test_each_iteration_starts_with_a_fresh_state():
    p = experimental.pipeline_def(body, debug=True)(
        batch_size=8, num_threads=1, device_id=None, seed=3)
    states = []
    for n in SIZES:
        plus, rand, seven = p.run()
        states.append(p._executor.state)
        assert len(plus) == len(rand) == len(seven) == n     # no size left from before
        assert plus.as_array()[:, 0].tolist() == [10 * n + i + 1 for i in range(n)]
    assert len({id(s) for s in states}) == len(SIZES)
    assert [s.first_id for s in states] == [0, 2, 7]
    assert [s.fixed_by for s in states] == [states[0].fixed_by] * len(SIZES)


def test_variable_batch_sizes_give_the_graph_mode_values():
    graph = pipeline_def(body)(batch_size=8, num_threads=1, device_id=None, seed=3,
                               exec_async=False, exec_pipelined=False)
    debug = experimental.pipeline_def(body, debug=True)(
        batch_size=8, num_threads=1, device_id=None, seed=3)
    for _ in SIZES:
        for a, b in zip(graph.run(), debug.run(), strict=True):
            np.testing.assert_array_equal(a.as_array(), b.as_array())
