"""The generated fn/ops APIs: DALI's schema names, and the DALI 2.4 operators dali lacks."""

import re

import pytest

from dali import _registry, fn, ops

MISSING = ("{} is an operator of NVIDIA DALI 2.4 that dali does not implement yet; "
           "docs/operators.md lists the operators dali has.")


@pytest.mark.parametrize("module, name, where", [
    (fn.hidden, "video_reader", "dali.fn.hidden.video_reader"),  # DALI's internal name
    (fn.hidden, "coco_reader", "dali.fn.hidden.coco_reader"),
    (ops.hidden, "VideoReader", "dali.ops.hidden.VideoReader")])
def test_dali_operators_dali_lacks_say_so(module, name, where):
    with pytest.raises(AttributeError, match=f"^{re.escape(MISSING.format(where))}$"):
        getattr(module, name)
    assert not hasattr(module, name)


def test_other_names_are_plain_attribute_errors():
    with pytest.raises(AttributeError, match=r"^module 'dali.fn' has no attribute 'no_such'$"):
        _ = fn.no_such


def test_fn_functions_carry_dalis_schema_name():
    assert fn.resize._schema_name == "Resize"
    assert fn.readers.file._schema_name == "readers__File"


def test_every_public_operator_is_a_dali_operator():
    dali_names = set(_registry._dali_operators())
    ours = {impl.schema.name for impl in _registry.all_operators().values()
            if not impl.schema.internal and not impl.schema.name.startswith("test_")}
    assert ours <= dali_names, sorted(ours - dali_names)
