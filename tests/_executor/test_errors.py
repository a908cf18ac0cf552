"""Run-time operator errors: PipelineError, also of the class DALI raises for the cause."""

import numpy as np
import pytest

from dali import fn, pipeline_def
from dali._executor import errors


@pytest.mark.parametrize("cause", [ValueError, TypeError, OverflowError, IndexError, KeyError,
                                   ZeroDivisionError, NotImplementedError])
def test_error_class_mixes_in_builtin_causes(cause):
    cls = errors.error_class(cause)
    assert issubclass(cls, errors.PipelineError) and issubclass(cls, RuntimeError)
    assert issubclass(cls, cause)
    assert errors.error_class(cause) is cls
    err = cls("line one\nline two", "op", 3)
    assert str(err) == "line one\nline two"  # not KeyError's quoted repr
    assert err.operator == "op" and err.sample == 3


class _Custom(ValueError):
    pass


@pytest.mark.parametrize("cause", [RuntimeError, OSError, FileNotFoundError, StopIteration,
                                   _Custom, errors.PipelineError])
def test_error_class_is_plain_where_it_cannot_or_need_not_mix(cause):
    assert errors.error_class(cause) is errors.PipelineError


def _fails_with(function):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        data = fn.external_source(source=lambda: [np.zeros(2, np.float32)] * 2)
        return fn.python_function(data, function=function)

    p = pipe()
    p.build()
    with pytest.raises(errors.PipelineError) as info:
        p.run()
    return info.value


def _key_error(x):
    raise KeyError("missing")


def _os_error(x):
    raise FileNotFoundError("nowhere")


def test_pipeline_error_keeps_the_cause_class_and_the_message():
    err = _fails_with(_key_error)
    assert isinstance(err, KeyError) and isinstance(err, RuntimeError)
    assert str(err).startswith("Critical error in pipeline:\n")
    assert "KeyError: 'missing'" in str(err)
    err = _fails_with(_os_error)
    assert type(err) is errors.PipelineError
    assert "FileNotFoundError: nowhere" in str(err)
