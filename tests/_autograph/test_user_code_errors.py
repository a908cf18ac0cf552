"""An exception escaping a pipeline function with enable_conditionals=True carries DALI's
"in user code:" block (here as a note): the user's lines from the pipeline function down to the
error, `*` on converted code, `**` on the first library frame."""

import importlib
import inspect

import numpy as np
import pytest

from dali import fn, pipeline_def
from dali.pipeline import experimental

HERE = __file__


def line_of(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, s in enumerate(lines) if text in s)


def frame(func, text, mark="  *"):
    return (f'    File "{HERE}", line {line_of(func, text)}, in {func.__name__}{mark}\n'
            f"        {text}")


def source():
    return [np.array(1, np.int32)] * 2


def divide_in_branch():
    x = fn.external_source(source)
    if x > 0:
        z = 1 / 0
        x = x + z
    return x


def helper(x):
    if x > 1:
        if x > 2:
            y = 1 / 0
            x = x + y
    return x


def divide_in_helper():
    x = fn.external_source(source)
    return helper(x)


def bad_argument():
    x = fn.external_source(source)
    if x > 0:
        x = fn.flip(x, no_such_arg=3)
    return x


def one_branch_only():
    x = fn.external_source(source)
    if x > 0:
        y = x
    return y  # noqa: F821


def run(body, debug=False):
    factory = experimental.pipeline_def(body, debug=debug) if debug else pipeline_def(body)
    return factory(batch_size=2, num_threads=1, device_id=None, enable_conditionals=True)


def notes(e):
    return "\n".join(getattr(e.value, "__notes__", []))


@pytest.mark.parametrize("debug", [False, True])
def test_error_in_a_branch_names_the_users_line(debug):
    with pytest.raises(ZeroDivisionError) as e:
        run(divide_in_branch, debug).run()
    assert str(e.value) == "division by zero"
    assert notes(e) == "in user code:\n\n" + frame(divide_in_branch, "z = 1 / 0")


def test_error_in_a_called_function_lists_both_lines():
    with pytest.raises(ZeroDivisionError) as e:
        run(divide_in_helper)
    assert notes(e) == ("in user code:\n\n" + frame(divide_in_helper, "return helper(x)") + "\n"
                        + frame(helper, "y = 1 / 0"))


def test_error_in_library_code_marks_its_first_frame():
    with pytest.raises(KeyError, match='Argument "no_such_arg" is not defined') as e:
        run(bad_argument)
    text = notes(e)
    user = frame(bad_argument, "x = fn.flip(x, no_such_arg=3)")
    assert text.startswith("in user code:\n\n" + user + "\n    File ")
    assert text.count("  **\n") == 1
    assert "dali/_autograph" not in text


def test_conditional_rule_errors_are_annotated_too():
    with pytest.raises(RuntimeError, match="Variable 'y' must also be initialized in the `else` "
                                           "branch") as e:
        run(one_branch_only)
    assert notes(e).startswith("in user code:\n\n" + frame(one_branch_only, "if x > 0:"))


def test_without_conditionals_nothing_is_added():
    def divide():
        return fn.external_source(source) / 0 if 1 / 0 else None

    with pytest.raises(ZeroDivisionError) as e:
        pipeline_def(divide)(batch_size=2, num_threads=1, device_id=None)
    assert not hasattr(e.value, "__notes__")


@pytest.mark.oracle
def test_real_dali_annotates_the_same_lines():
    dali = importlib.import_module("nvidia.dali")
    real_fn = importlib.import_module("nvidia.dali.fn")

    def divide():
        x = real_fn.external_source(source)
        if x > 0:
            z = 1 / 0
            x = x + z
        return x

    with pytest.raises(Exception) as e:
        dali.pipeline_def(divide)(batch_size=2, num_threads=1, device_id=None,
                                  enable_conditionals=True)
    assert str(e.value).startswith("in user code:\n\n" + frame(divide, "z = 1 / 0") + "\n\n"
                                   "    ZeroDivisionError: division by zero")
