"""Values that are not DataNodes, used as operator inputs or returned as pipeline outputs."""

import re

import numpy as np
import pytest

from dali import fn, pipeline_def, types
from dali.pipeline import experimental

_INPUT = ("when calling operator `dali.fn.cast`: expected inputs of type 'DataNode', list of "
          "'DataNode' or convertible to constant nodes. Received input `{}` of type '{}'.")
_OUTPUT = ("Illegal output type. The output {} is a `{}`. Allowed types are ``DataNode`` and "
           "types convertible to `types.Constant` (numerical constants, 1D lists/tuple of "
           "numbers and ND arrays).")


def _build(body, debug=False):
    deco = experimental.pipeline_def if debug else pipeline_def
    kw = {"debug": True} if debug else {}
    p = deco(body, batch_size=2, num_threads=1, device_id=None, **kw)()
    p.build()
    return p.run()


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("value, tname", [("abc", "str"), ({"a": 1}, "dict"),
                                          (object(), "object"), (None, "NoneType")])
def test_non_numeric_operator_input_is_a_type_error_naming_it(value, tname, debug):
    with pytest.raises(TypeError, match=f"^{re.escape(_INPUT.format(0, tname))}$"):
        _build(lambda: fn.cast(value, dtype=types.FLOAT), debug)


def test_numeric_values_are_constant_inputs():
    out, = _build(lambda: fn.cast(np.float64(1.5), dtype=types.INT32) + fn.cast(np.array([1, 2]),
                                                                               dtype=types.INT32))
    assert out.as_array().tolist() == [[3, 4], [3, 4]]     # 1.5 rounds to 2


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("outputs, index, tname", [
    (lambda: "abc", 0, "<class 'str'>"), (lambda: {"a": 1}, 0, "<class 'dict'>"),
    (lambda: (fn.random.uniform(), object()), 1, "<class 'object'>"),
    (lambda: (fn.random.uniform(), [[1], [2, 3]]), 1, "<class 'list'>"),
])
def test_output_that_cannot_be_a_constant_names_the_output(outputs, index, tname, debug):
    with pytest.raises(TypeError, match=f"^{re.escape(_OUTPUT.format(index, tname))}$"):
        _build(outputs, debug)


@pytest.mark.oracle
def test_messages_match_dali():
    from nvidia.dali import fn as dfn
    from nvidia.dali import pipeline_def as dpipeline_def
    from nvidia.dali import types as dtypes

    with pytest.raises(TypeError) as want:
        dpipeline_def(lambda: dfn.cast("abc", dtype=dtypes.FLOAT), batch_size=2,
                      num_threads=1, device_id=None)()
    assert str(want.value) == _INPUT.format(0, "str").replace("`dali.", "`nvidia.dali.")
    p = dpipeline_def(lambda: (dfn.random.uniform(), object()), batch_size=2, num_threads=1,
                      device_id=None)
    with pytest.raises(TypeError) as want:
        p().build()
    assert str(want.value) == _OUTPUT.format(1, "<class 'object'>")
