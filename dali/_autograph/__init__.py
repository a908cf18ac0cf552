"""Conditionals: the `ast` rewriting behind `@pipeline_def(enable_conditionals=True)`.

`converter` rewrites a function's `if` statements, `and`/`or`/`not` and calls into calls of
`runtime`, which runs them as Python for Python values and hands DataNodes to the hooks that
`conditional` (split/merge of batches, the scope stack) registers there when imported;
`errors` notes where in the user's code an exception escaping the pipeline function happened.
"""

from dali._autograph.conditional import ConditionStack
from dali._autograph.converter import convert, is_user_function
from dali._autograph.errors import annotate


def convert_pipeline_function(func):
    """`func` converted, and wrapped so that an exception escaping it names the user's lines
    ("in user code:", as DALI's AutoGraph does; see `errors`)."""
    return annotate(convert(func))


__all__ = ["ConditionStack", "convert", "convert_pipeline_function", "is_user_function"]
