"""Executor overhead: external_source of tiny uint8 samples followed by 10 or 40 chained
`x + 1` operators, batches of 64 and of 1, in graph mode (dali and real DALI) and in debug
mode (dali; real DALI's debug mode needs a CUDA driver).

Each round is one iteration.  The per-operator cost is the slope between the 10- and 40-op
chains (`python -m bench.report` computes it); extra_info holds µs per iteration.
"""

from __future__ import annotations

import pytest

from bench import backends, pipelines

ROUNDS = 200
DEBUG_ROUNDS = 30


@pytest.mark.parametrize("batch_size", [64, 1], ids=lambda b: f"bs{b}")
@pytest.mark.parametrize("n_ops", [10, 40], ids=lambda n: f"{n}ops")
def test_chain(benchmark, backend, make_pipeline, n_ops, batch_size):
    pipe = make_pipeline(pipelines.chain, n_ops=n_ops, batch=pipelines.tiny_batch(batch_size),
                         batch_size=batch_size)
    benchmark.group = f"executor: {n_ops} ops, batch {batch_size}"
    benchmark.pedantic(pipe.run, rounds=ROUNDS, warmup_rounds=5, iterations=1)
    benchmark.extra_info["us_per_op"] = round(1e6 * benchmark.stats.stats.median / n_ops, 1)


@pytest.mark.parametrize("batch_size", [64, 1], ids=lambda b: f"bs{b}")
@pytest.mark.parametrize("n_ops", [10, 40], ids=lambda n: f"{n}ops")
def test_chain_debug_mode(benchmark, backend, make_pipeline, n_ops, batch_size):
    if backend.name == backends.PEER:
        pytest.skip("real DALI's debug mode needs a CUDA driver, even for CPU operators")
    pipe = make_pipeline(pipelines.chain, n_ops=n_ops, batch=pipelines.tiny_batch(batch_size),
                         batch_size=batch_size, debug=True)
    benchmark.group = f"debug mode: {n_ops} ops, batch {batch_size}"
    benchmark.pedantic(pipe.run, rounds=DEBUG_ROUNDS, warmup_rounds=2, iterations=1)
    benchmark.extra_info["us_per_op"] = round(1e6 * benchmark.stats.stats.median / n_ops, 1)
