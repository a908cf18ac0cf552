"""`fn.transform_translation`, the name of `fn.transforms.translation` before DALI 1.0, kept so
that older pipelines run unchanged (it warns, DeprecationWarning, when a pipeline using it is
built)."""

from __future__ import annotations

from dali.ops import _aliases
from dali.ops.transforms import translation

ALIASES = [
    _aliases.deprecated_alias("transform_translation", translation.Translation,
                              "the transforms moved to `fn.transforms` in DALI 1.0",
                              module=__name__),
]
