"""Conditionals: the `ast` rewriting behind `@pipeline_def(enable_conditionals=True)`.

`converter` rewrites a function's `if` statements, `and`/`or`/`not` and calls into calls of
`runtime`, which runs them as Python for Python values and hands DataNodes to the hooks the
conditional layer registers there.
"""

from dali._autograph.converter import convert, is_user_function

__all__ = ["convert", "is_user_function"]
