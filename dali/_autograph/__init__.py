"""Conditionals: the `ast` rewriting behind `enable_conditionals=True` (in progress)."""


def convert(func):
    raise NotImplementedError("enable_conditionals=True is not implemented yet in dali")
