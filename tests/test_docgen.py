import pathlib

from dali import _docgen

DOC = pathlib.Path(__file__).parents[1] / "docs" / "operators.md"


def test_operator_reference_is_up_to_date():
    assert DOC.read_text() == _docgen.operator_reference(), \
        "docs/operators.md is stale: run `python -m dali docs`"


def test_reference_lists_public_operators_with_arguments():
    text = _docgen.operator_reference()
    assert "## fn.external_source" in text
    assert "| `source` |" in text
    assert "## fn.constant" not in text  # internal operators are hidden
