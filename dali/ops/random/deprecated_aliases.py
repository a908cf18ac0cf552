"""The random generators' names before DALI 1.0 (`fn.uniform`, `fn.coin_flip`,
`fn.normal_distribution`), kept so that older pipelines run unchanged: each is the generator it
stands for, and warns (DeprecationWarning) when a pipeline using it is built."""

from __future__ import annotations

import functools

from dali.ops import _aliases
from dali.ops.random import coin_flip, normal, uniform

_alias = functools.partial(_aliases.deprecated_alias, module=__name__)
_RENAMED = "the random generators moved to `fn.random` in DALI 1.0"

ALIASES = [
    _alias("uniform", uniform.Uniform, _RENAMED),
    _alias("coin_flip", coin_flip.CoinFlip, _RENAMED),
    _alias("normal_distribution", normal.Normal, _RENAMED),
]
