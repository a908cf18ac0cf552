"""Fixtures of the benchmark suites: the corpus, the two backends, pipelines that are dropped
(and their prefetching allowed to finish) after each benchmark.

Run with `python -m pytest bench/ --benchmark-only` (pyproject's addopts has
`--benchmark-skip`, so the normal test run skips these).
"""

from __future__ import annotations

import pytest

from bench import backends, corpus, measure, pipelines


@pytest.fixture(scope="session")
def corpus_root():
    """The benchmark corpus directory (made first when missing; skips when it cannot be)."""
    try:
        return str(corpus.locate())
    except corpus.CorpusUnavailable as e:
        pytest.skip(str(e))


@pytest.fixture(params=backends.NAMES, ids=["dali", "DALI"])
def backend(request):
    """dali, then real NVIDIA DALI (skipped where it is not installed)."""
    if not backends.available(request.param):
        pytest.skip("real NVIDIA DALI (nvidia-dali-cuda120) is not installed")
    return backends.load(request.param)


@pytest.fixture
def make_pipeline(backend):
    """`make(graph, **kwargs)` builds a pipeline of `backend` (bench.pipelines.build); the
    pipelines are dropped after the test and their queued work allowed to end."""
    made = []

    def make(graph, **kwargs):
        made.append(pipelines.build(backend, graph, **kwargs))
        return made[-1]

    yield make
    made.clear()
    measure.settle(0.5)
