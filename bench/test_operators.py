"""Every operator alone (bench/cases/): the operator fed by an external_source of a
prepared batch, for the "image" and "small" input sets, on dali and on real DALI.

Each round is one batch of 64 through the operator pipeline; pytest-benchmark groups the rows
by case and input set, so dali and DALI stand side by side.  extra_info holds the baseline
pipeline's time per batch (bench/opcase.py: the sources feeding `.shape()`) and `op_ms`, the
median minus that baseline: the operator's own time, what `python -m bench.report --sections
operators` tabulates.
Pipelines are synchronous (no prefetching), as in the report.
"""

from __future__ import annotations

import statistics
import time

import pytest

from bench import backends, opcase, operator_report, operators
from bench.suite import require

ROUNDS = 30
WARMUP = 3
BASELINE_ROUNDS = 20


def _median_batch_time(pipe, rounds):
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        pipe.run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the deprecated aliases
@pytest.mark.parametrize("size", opcase.SIZES)
@pytest.mark.parametrize("case", operators.CASE_LIST, ids=lambda c: c.name)
def test_operator(benchmark, backend, make_pipeline, case, size):
    require(backend, case.needs)
    try:
        pipe = make_pipeline(opcase.op_graph(case, size), sync=True)
        pipe.run()
    except Exception as e:
        if backend.name == backends.OURS:
            raise
        pytest.skip(f"real DALI cannot run this case: {operator_report.reason(e)}")
    base = make_pipeline(opcase.baseline_graph(case, size), sync=True)
    for _ in range(WARMUP):
        base.run()
    baseline = _median_batch_time(base, BASELINE_ROUNDS)
    benchmark.group = f"{case.name} ({size})"
    benchmark.pedantic(pipe.run, rounds=ROUNDS, warmup_rounds=WARMUP, iterations=1)
    benchmark.extra_info["baseline_ms"] = round(1e3 * baseline, 3)
    benchmark.extra_info["op_ms"] = round(1e3 * (benchmark.stats.stats.median - baseline), 3)
