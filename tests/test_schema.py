"""Schema features every operator relies on: deprecated aliases and arguments without effect."""

import numpy as np
import pytest

from dali import fn, pipeline_def, types
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T

IMG = np.arange(4 * 4 * 3, dtype=np.uint8).reshape(4, 4, 3)


def _crop(**kwargs):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.crop(fn.external_source(source=lambda: [IMG]), crop=(2, 2), **kwargs)
    return pipe


def test_alias_and_its_argument_together_is_dalis_type_error():
    with pytest.raises(TypeError, match=r"^Operator `dali.fn.crop` got an unexpected "
                       r"'output_dtype' deprecated argument when 'dtype' was already provided$"):
        _crop(dtype=types.FLOAT, output_dtype=types.FLOAT)()


def test_alias_warns_and_reaches_the_operator_under_the_new_name():
    with pytest.warns(DeprecationWarning, match="`output_dtype` is a deprecated alias for "
                                                "`dtype`. Use `dtype` instead."):
        p = _crop(output_dtype=types.FLOAT)()
    p.build()
    (out,) = p.run()
    assert out.as_array().dtype == np.float32
    np.testing.assert_array_equal(out.as_array()[0], IMG[1:3, 1:3].astype(np.float32))


def test_resolve_aliases_renames_only_aliases():
    s = Schema("test_only.alias", args=[Arg("dtype", T.DATA_TYPE, None),
                                        Arg("output_dtype", T.DATA_TYPE, None,
                                            alias_of="dtype")])
    assert s.resolve_aliases({"dtype": 1}) == {"dtype": 1}
    with pytest.warns(DeprecationWarning):
        assert s.resolve_aliases({"output_dtype": 2, "preserve": True}) == \
            {"dtype": 2, "preserve": True}


def test_docstring_says_why_an_argument_has_no_effect():
    s = Schema("test_only.ignored", args=[Arg("blocking", T.BOOL, False, doc="Wait.",
                                              ignored="feeding is synchronous")])
    assert "Wait. (Accepted for compatibility; no effect here: feeding is synchronous.)" in \
        s.docstring()
