"""Helpers for the pytest-benchmark suites (skips, recorded throughput)."""

from __future__ import annotations

import pytest

from bench import backends


def require(backend, needs):
    """Skip when `backend` lacks one of the operators `needs` (paths under `fn`)."""
    missing = [op for op in needs if not backends.has_operator(backend, op)]
    if missing:
        pytest.skip(f"{backend.name} has no fn.{', fn.'.join(missing)} yet")


def record_rate(benchmark, items_per_round, unit="img/s"):
    """Store the median throughput of a finished benchmark in its extra_info."""
    benchmark.extra_info[unit] = round(items_per_round / benchmark.stats.stats.median, 1)
