"""Conditionals: the `ast` rewriting behind `@pipeline_def(enable_conditionals=True)`.

`converter` rewrites a function's `if` statements, `and`/`or`/`not` and calls into calls of
`runtime`, which runs them as Python for Python values and hands DataNodes to the hooks that
`conditional` (split/merge of batches, the scope stack) registers there when imported.
"""

from dali._autograph.conditional import ConditionStack
from dali._autograph.converter import convert, is_user_function

__all__ = ["ConditionStack", "convert", "is_user_function"]
