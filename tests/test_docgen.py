import pathlib

from dali import _docgen

DOCS = pathlib.Path(__file__).parents[1] / "docs"


def test_operator_reference_is_up_to_date():
    assert (DOCS / "operators.md").read_text() == _docgen.operator_reference(), \
        "docs/operators.md is stale: run `python -m dali docs`"


def test_differences_list_arguments_without_effect():
    text = (DOCS / "differences.md").read_text()
    assert text == _docgen.with_ignored_arguments(text), \
        "docs/differences.md is stale: run `python -m dali docs`"
    assert "- `fn.resize`, `minibatch_size`: the CPU kernel takes the whole batch" in text
    assert "- `fn.readers.file`, `dont_use_mmap`:" in text


def test_reference_lists_public_operators_with_arguments():
    text = _docgen.operator_reference()
    assert "## fn.external_source" in text
    assert "| `source` |" in text
    assert "## fn.constant" not in text  # internal operators are hidden


def test_reference_marks_aliases_and_arguments_without_effect():
    text = _docgen.operator_reference()
    assert "| `output_dtype` | dali.types.DALIDataType | — | *deprecated alias of `dtype`*" in text
    assert "*no effect: tunes DALI's nvJPEG decoder; dali's mixed backend decodes on the CPU " \
        "and uploads*" in text

