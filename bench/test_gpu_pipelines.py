"""The GPU image pipelines of bench/gpu.py (P1, P2, P2 rrc, P3 with mixed decoding and the
augmentations on CUDA device 0), with dali and real DALI's GPU path; skipped without a CUDA
device.

Each round is one batch of 64; pytest-benchmark groups the rows by pipeline ("gpu P2"), so its
table shows dali's and DALI's times side by side with their ratio.
"""

from __future__ import annotations

import pytest

from bench import gpu
from bench.suite import record_rate, require

ROUNDS = 20
WARMUP = 3
# checked before the fixtures: without a device the corpus is not even looked for
pytestmark = pytest.mark.skipif(gpu.unavailable() is not None,
                                reason=f"GPU pipelines: {gpu.unavailable()}")


@pytest.mark.parametrize("case", gpu.CASES, ids=lambda c: c.key.replace(" ", "-"))
def test_gpu_image_pipeline(benchmark, backend, make_pipeline, corpus_root, case):
    require(backend, case.needs)
    pipe = make_pipeline(case.graph, root=corpus_root, device_id=gpu.DEVICE_ID, device="gpu")
    benchmark.group = f"gpu {case.key}"
    benchmark.extra_info["pipeline"] = f"{case.title} (mixed decoder, GPU augmentations)"
    benchmark.extra_info["device"] = gpu.device_name()
    benchmark.pedantic(pipe.run, rounds=ROUNDS, warmup_rounds=WARMUP, iterations=1)
    record_rate(benchmark, pipe.max_batch_size)
