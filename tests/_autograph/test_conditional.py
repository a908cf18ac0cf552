"""End-to-end conditionals on DataNodes, in graph and debug mode."""

import numpy as np
import pytest

from dali import fn, pipeline_def, types
from dali._pipeline import definition
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


# -- more end-to-end behaviour, in both modes ----------------------------------------------------
MODES = pytest.mark.parametrize("debug", [False, True], ids=["graph", "debug"])


@MODES
@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
                                   np.uint64, np.float16, np.float32, np.float64])
def test_scalar_conditions_of_any_numeric_type(debug, dtype):
    raw = [0, 1, 2, 0, 0.5, 3]

    def body():
        c = fn.external_source(source=lambda: [np.array(v, dtype) for v in raw])
        if c:
            out = 1
        else:
            out = 0
        return (out,)

    out, = make(body, debug).run()
    assert out.as_array().tolist() == [int(bool(np.array(v, dtype))) for v in raw]


@MODES
def test_empty_sub_batches_in_both_branches_and_nested(debug):
    patterns = iter([[True] * N, [False] * N])

    def body():
        x = fn.external_source(source=values(0), batch_info=True)
        c = fn.external_source(source=lambda: [np.array(v) for v in next(patterns)])
        if c:
            if c:
                y = x * 2
            else:
                y = x * 3  # always empty
        else:
            y = -x
        return (y,)

    p = make(body, debug)
    for it, factor in enumerate((2, -1)):
        y, = p.run()
        assert arrays(y) == [[factor * (10 * it + i)] * 2 for i in range(N)]


@MODES
def test_inputless_operators_in_a_branch_run_on_the_whole_batch(debug):
    def body():
        c = fn.external_source(source=predicate([True, False]))
        if c:
            y = fn.random.uniform(range=[0, 1], seed=5)
        else:
            y = fn.random.uniform(range=[5, 6], seed=6)
        return y, fn.random.uniform(range=[0, 1], seed=5), fn.random.uniform(range=[5, 6], seed=6)

    for _ in range(2):
        y, a, b = [tl.as_array() for tl in make(body, debug).run()]
        expect = np.where(np.arange(N) % 2 == 0, a, b)
        np.testing.assert_array_equal(y, expect)


@MODES
def test_short_circuit_evaluates_the_right_side_on_the_needed_samples_only(debug):
    seen = {"and": [], "or": []}

    def recorder(kind):
        def record(batch):
            seen[kind].append([bool(s) for s in batch])
            return [np.array(not s) for s in batch]
        return record

    def body():
        a = fn.external_source(source=predicate([True, False, True]))
        land = a and fn.python_function(a, function=recorder("and"), batch_processing=True)
        lor = a or fn.python_function(a, function=recorder("or"), batch_processing=True)
        return land, lor

    land, lor = make(body, debug, exec_async=False, exec_pipelined=False).run()
    a = [[True, False, True][i % 3] for i in range(N)]
    assert seen == {"and": [[True] * 4], "or": [[False] * 2]}
    assert land.as_array().tolist() == [False] * N  # a and (not a)
    assert lor.as_array().tolist() == [True] * N    # a or (not a)
    assert [x for x in a if x] == seen["and"][0]


@MODES
def test_python_conditions_keep_python_semantics(debug):
    def body(mirror, scale):
        x = fn.external_source(source=values(0), batch_info=True)
        if mirror:              # a Python bool: only one branch is traced
            x = fn.cast(x, dtype=types.FLOAT) * -1.0
        if scale and scale > 1:  # Python `and` short-circuits on None
            x = x * scale
        return x, not mirror

    for mirror, scale, factor in ((True, None, -1.0), (False, 3, 3.0), (True, 2, -2.0)):
        factory = (experimental.pipeline_def(body, debug=True) if debug else pipeline_def(body))
        p = factory(mirror=mirror, scale=scale, batch_size=N, num_threads=1, device_id=None,
                    enable_conditionals=True)
        x, flag = p.run()
        assert arrays(x) == [[factor * i] * 2 for i in range(N)]
        assert flag.as_array().tolist() == [not mirror] * N


def half(x, c):
    if c:
        x = x // 2
    return x


@definition.do_not_convert
def not_converted(x, c):
    if c:
        x = x // 2
    return x


@MODES
def test_called_functions_are_converted_unless_marked(debug):
    def body():
        x = fn.external_source(source=values(0), batch_info=True)
        c = fn.external_source(source=predicate([True, False]))
        return (half(x, c),)

    y, = make(body, debug).run()
    assert arrays(y) == [[i // 2 if i % 2 == 0 else i] * 2 for i in range(N)]

    def marked():
        x = fn.external_source(source=values(0), batch_info=True)
        return (not_converted(x, fn.external_source(source=predicate([True]))),)

    with pytest.raises(TypeError, match='"DataNode" was used in conditional context'):
        make(marked, debug).run()


@MODES
def test_conditional_expression_and_while_on_data_nodes_raise(debug):
    def if_expression():
        c = fn.external_source(source=predicate([True]))
        return (1 if c else 2,)

    def loop():
        c = fn.external_source(source=predicate([True]))
        while c:
            c = not c
        return (c,)

    for body in (if_expression, loop):
        with pytest.raises(TypeError, match='"DataNode" was used in conditional context'):
            make(body, debug).run()


def int_left():
    i, b = logic_operands()
    return (i and b,)


def int_right():
    i, b = logic_operands()
    return (b or i,)


def vector_right():
    i, b = logic_operands()
    return (b and fn.expand_dims(b, axes=[0]),)


def vector_left():
    i, b = logic_operands()
    return (fn.expand_dims(b, axes=[0]) or b,)


def vector_not():
    i, b = logic_operands()
    return (not fn.expand_dims(i, axes=[0]),)


def logic_operands():
    return (fn.external_source(source=lambda: [np.array(1, np.int32)] * N),
            fn.external_source(source=predicate([True, False])))


@MODES
@pytest.mark.parametrize("body, message", [
    (int_left, "`and` .* of `bool` type.*an input of type `int32` as the left argument"),
    (int_right, "`or` .* of `bool` type.*an input of type `int32` as the right argument"),
    (vector_right, "`and` .* of `bool` type.*a 1-d input as the right argument"),
    (vector_left, "`or` .* of `bool` type.*a 1-d input as the left argument"),
    (vector_not, "Logical expression `not` is restricted to scalar \\(0-d tensors\\) inputs, "
                 "that are placed on CPU. Got a 1-d input in logical expression"),
])
def test_logical_operand_errors(debug, body, message):
    with pytest.raises(RuntimeError, match=message):
        make(body, debug).run()


def return_in_one_branch():
    c = fn.external_source(source=predicate([True, False]))
    if c:
        return (c,)
    c = not c


@MODES
@pytest.mark.parametrize("body, error, message", [
    (undefined_body, RuntimeError, "Variable 'y' must also be initialized in the `else` branch"),
    (return_in_one_branch, RuntimeError, "The `else` branch must also have a return statement"),
    (divergent_body, ValueError, "Divergent data found in different branches"),
])
def test_definition_errors(debug, body, error, message):
    with pytest.raises(error, match=message):
        make(body, debug).run()


@MODES
def test_non_scalar_condition_fails_at_run_in_both_modes(debug):
    p = make(non_scalar_condition_body, debug)
    with pytest.raises(RuntimeError, match="Got a 1-d input as a condition of the `if`"):
        p.run()


@MODES
def test_merged_branches_must_agree_in_type(debug):
    def body():
        c = fn.external_source(source=predicate([True, False]))
        if c:
            y = fn.cast(c, dtype=types.INT32)
        else:
            y = fn.cast(c, dtype=types.FLOAT)
        return (y,)

    with pytest.raises(RuntimeError, match="Found distinct types: int32 and float"):
        make(body, debug).run()


def test_debug_mode_with_conditionals_needs_operator_outputs():
    def body():
        x = fn.external_source(source=values(0), batch_info=True)
        return (fn.cast([np.asarray(t) for t in x.get()], dtype=types.FLOAT),)

    with pytest.raises(ValueError, match="doesn't allow for modification of operator outputs"):
        make(body, True).run()


def failing_branch():
    c = fn.external_source(source=predicate([True, False]))
    if c:
        y = c
    else:
        raise KeyError("from the else branch")
    return (y,)


@MODES
def test_tracebacks_point_at_the_original_lines(debug):
    import traceback

    with pytest.raises(KeyError) as e:
        make(failing_branch, debug).run()
    frames = [(f.filename, f.lineno, f.name)
              for f in traceback.extract_tb(e.value.__traceback__)]
    first = failing_branch.__code__.co_firstlineno
    assert frames[-1] == (__file__, first + 5, "failing_branch")
    assert (__file__, first + 2, "failing_branch") in frames


def loop_body(flag):
    x = fn.external_source(source=lambda: [np.array(i, np.int32) for i in range(N)])
    for k in range(3):
        if x % 2 == k % 2:
            x = x + 10
        elif flag:          # a Python condition inside a per-sample `else`
            x = x - 1
        else:
            x = x * 2
    total = 0
    for v in (1, 2):
        if x > 15 and v == 2:   # a Python right operand
            total = total + v
    return x, total


@MODES
@pytest.mark.parametrize("flag", [True, False])
def test_ifs_in_loops_with_python_and_per_sample_conditions(debug, flag):
    def reference(i):
        for k in range(3):
            if i % 2 == k % 2:
                i += 10
            elif flag:
                i -= 1
            else:
                i *= 2
        return i

    factory = experimental.pipeline_def(loop_body, debug=True) if debug else \
        pipeline_def(loop_body)
    p = factory(flag=flag, batch_size=N, num_threads=1, device_id=None,
                enable_conditionals=True)
    for _ in range(2):
        x, total = p.run()
        expect = [reference(i) for i in range(N)]
        assert x.as_array().tolist() == expect
        assert total.as_array().tolist() == [2 if v > 15 else 0 for v in expect]


def gpu_condition():
    c = fn.external_source(source=predicate([True]))
    if c.gpu():
        y = c
    else:
        y = c
    return (y,)


def gpu_and_left():
    c = fn.external_source(source=predicate([True]))
    return (c.gpu() and c,)


def gpu_or_right():
    c = fn.external_source(source=predicate([True]))
    return (c or c.gpu(),)


@pytest.mark.parametrize("body, error, message", [
    (gpu_condition, ValueError, "Invalid device \"gpu\" for argument 'predicate' of operator "
                                "'dali.fn._conditional.split'. Named arguments must be on CPU."),
    (gpu_and_left, RuntimeError, "Logical expression `and` is restricted to scalar \\(0-d "
                                 "tensors\\) inputs of `bool` type, that are placed on CPU. Got a "
                                 "GPU input as the left argument in logical expression."),
    (gpu_or_right, RuntimeError, "Logical expression `or` .* Got a GPU input as the right "
                                 "argument"),
])
def test_gpu_conditions_fail_at_definition(body, error, message):
    with pytest.raises(error, match=message):
        make(body, False)
