"""End-to-end conditionals on DataNodes, in graph and debug mode."""

import numpy as np
import pytest

from dali import fn, pipeline_def, types
from dali.pipeline import experimental

N = 6


def values(offset=0):
    def cb(info):
        return [np.full((2,), offset + 10 * info.iteration + i, np.int32) for i in range(N)]
    return cb


def predicate(pattern):
    def cb():
        return [np.array(pattern[i % len(pattern)]) for i in range(N)]
    return cb


def make(body, debug, **kw):
    factory = experimental.pipeline_def(body, debug=debug) if debug else pipeline_def(body)
    return factory(batch_size=N, num_threads=1, device_id=None, enable_conditionals=True,
                   seed=7, **kw)


def arrays(tl):
    return [np.asarray(t).tolist() for t in tl]


def if_else_body():
    x = fn.external_source(source=values(0), batch_info=True)
    other = fn.external_source(source=values(100), batch_info=True)
    c = fn.external_source(source=predicate([True, False, False]))
    if c:
        y = x
        tag = 1
    else:
        y = other
        tag = 2
    return y, tag


@pytest.mark.parametrize("debug", [False, True])
def test_if_else_selects_per_sample(debug):
    p = make(if_else_body, debug)
    for it in range(2):
        y, tag = p.run()
        expect = [[10 * it + i] * 2 if i % 3 == 0 else [100 + 10 * it + i] * 2
                  for i in range(N)]
        assert arrays(y) == expect
        assert tag.dtype == types.INT32
        assert [int(t) for t in tag.as_array()] == [1 if i % 3 == 0 else 2 for i in range(N)]


def nested_body():
    x = fn.external_source(source=values(0), batch_info=True)
    a = fn.external_source(source=predicate([True, True, False, False]))
    b = fn.external_source(source=predicate([True, False]))
    if a:
        if b:
            code = 11
        else:
            code = 10
    elif b:
        code = 1
    else:
        code = 0
    return x, code


@pytest.mark.parametrize("debug", [False, True])
def test_nested_and_elif(debug):
    _, code = make(nested_body, debug).run()
    a = [True, True, False, False]
    b = [True, False]
    expect = [(11 if b[i % 2] else 10) if a[i % 4] else (1 if b[i % 2] else 0) for i in range(N)]
    assert [int(v) for v in code.as_array()] == expect


def integer_condition_body():
    flag = fn.external_source(source=lambda: [np.array(i % 3, np.int32) for i in range(N)])
    if flag:
        out = 5
    else:
        out = 6
    return (out,)


def test_numeric_condition_nonzero_is_true():
    out, = make(integer_condition_body, False).run()
    assert [int(v) for v in out.as_array()] == [6, 5, 5, 6, 5, 5]


def logic_body():
    a = fn.external_source(source=predicate([True, False, True]))
    b = fn.external_source(source=predicate([True, True, False, False]))
    return a and b, a or b, not a


@pytest.mark.parametrize("debug", [False, True])
def test_and_or_not(debug):
    land, lor, lnot = make(logic_body, debug).run()
    a = [[True, False, True][i % 3] for i in range(N)]
    b = [[True, True, False, False][i % 4] for i in range(N)]
    assert land.dtype == types.BOOL
    assert land.as_array().tolist() == [x and y for x, y in zip(a, b, strict=True)]
    assert lor.as_array().tolist() == [x or y for x, y in zip(a, b, strict=True)]
    assert lnot.as_array().tolist() == [not x for x in a]


def empty_branch_body():
    x = fn.external_source(source=values(0), batch_info=True)
    c = fn.external_source(source=predicate([False]))
    if c:
        y = fn.external_source(source=values(500), batch_info=True)
    else:
        y = x
    return (y,)


def test_empty_sub_batch():
    y, = make(empty_branch_body, False).run()
    assert arrays(y) == [[i, i] for i in range(N)]


def undefined_body():
    x = fn.external_source(source=values(0), batch_info=True)
    c = fn.external_source(source=predicate([True, False]))
    if c:
        y = x
    return y


def test_variable_set_in_one_branch_only():
    with pytest.raises(RuntimeError, match="Variable 'y' must also be initialized in the "
                                           "`else` branch"):
        make(undefined_body, False)


def divergent_body():
    x = fn.external_source(source=values(0), batch_info=True)
    c = fn.external_source(source=predicate([True, False]))
    if c:
        y = (x, x)
    else:
        y = x
    return y


def test_divergent_structures():
    with pytest.raises(ValueError, match="Divergent data found in different branches"):
        make(divergent_body, False)


def non_scalar_condition_body():
    x = fn.external_source(source=values(0), batch_info=True)
    if x:
        y = x
    else:
        y = x
    return (y,)


def test_non_scalar_condition_fails_at_run():
    p = make(non_scalar_condition_body, False)
    with pytest.raises(RuntimeError, match="restricted to scalar \\(0-d tensors\\) inputs.*Got a "
                                           "1-d input as a condition"):
        p.run()


def int_and_body():
    a = fn.external_source(source=lambda: [np.array(1, np.int32)] * N)
    b = fn.external_source(source=predicate([True]))
    return (b and a,)


def test_and_operands_must_be_bool():
    with pytest.raises(RuntimeError, match="Logical expression `and` is restricted to scalar "
                                           "\\(0-d tensors\\) inputs of `bool` type.*`int32` as "
                                           "the right argument"):
        make(int_and_body, False).run()


def test_without_conditionals_if_raises_type_error():
    with pytest.raises(TypeError, match='"DataNode" was used in conditional context'):
        pipeline_def(if_else_body)(batch_size=N, num_threads=1, device_id=None)
