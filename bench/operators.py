"""One benchmark case per public CPU operator, each written once against a `(fn, types)` pair.

The cases live in bench/cases/ (one module per family); what a case is and the inputs it is
measured on are in bench/opcase.py.  `public_operators()` lists dali's registered public
operators; `row_names()` is what the report covers (those, plus every case, so an operator dali
lacks still shows real DALI's time).  tests/test_bench_operators.py fails when a public operator
has no case.
"""

from __future__ import annotations

from bench import cases

CASE_LIST = cases.all_cases()
CASES = {c.name: c for c in CASE_LIST}
if len(CASES) != len(CASE_LIST):
    raise RuntimeError("bench/cases: two cases share a name")


# -- what the report covers ----------------------------------------------------------------------
def public_operators():
    """dali's registered public operators (fn paths), sorted."""
    import dali.fn  # noqa: F401  (registers every operator)
    from dali import _registry

    return sorted(name for name, impl in _registry.all_operators().items()
                  if not impl.schema.internal and not name.startswith("test_"))


def row_names(only=None):
    """Rows of the report: dali's public operators and every case, sorted; `only` (names)
    restricts them."""
    names = sorted(set(public_operators()) | set(CASES))
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise ValueError(f"no operator or case named {', '.join(unknown)}")
        names = [n for n in names if n in set(only)]
    return names
