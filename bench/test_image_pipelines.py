"""P1 (decode only), P2 (ResNet-50 training, two variants), P3 (validation) on the corpus, with
dali and real DALI; plus two references: the raw cv2.imdecode ceiling with the same number of
threads (group P1) and torchvision's DataLoader (groups P2 and P3, where torch is installed).

Each round is one batch of 64; pytest-benchmark groups the rows by pipeline, so its table
shows dali's and DALI's times side by side with their ratio.
"""

from __future__ import annotations

import pytest

from bench import measure, pipelines
from bench.suite import record_rate, require

ROUNDS = 20
WARMUP = 3


@pytest.mark.parametrize("case", pipelines.IMAGE_CASES, ids=lambda c: c.key.replace(" ", "-"))
def test_image_pipeline(benchmark, backend, make_pipeline, corpus_root, case):
    require(backend, case.needs)
    pipe = make_pipeline(case.graph, root=corpus_root)
    benchmark.group = case.key
    benchmark.extra_info["pipeline"] = case.title
    benchmark.pedantic(pipe.run, rounds=ROUNDS, warmup_rounds=WARMUP, iterations=1)
    record_rate(benchmark, pipe.max_batch_size)


def test_cv2_decode_ceiling(benchmark, corpus_root):
    """cv2.imdecode of in-memory JPEGs on NUM_THREADS threads: the bound for P1's decoding."""
    files = measure.corpus_files(corpus_root)[:pipelines.BATCH_SIZE * ROUNDS]
    encoded = measure.read_encoded(files)
    batches = [encoded[i:i + pipelines.BATCH_SIZE]
               for i in range(0, len(encoded), pipelines.BATCH_SIZE)]
    it = iter(batches * 2)
    benchmark.group = "P1"
    with measure.cv2_ceiling_executor(pipelines.NUM_THREADS) as pool:
        benchmark.pedantic(lambda: measure.cv2_decode(next(it), pool), rounds=ROUNDS,
                           warmup_rounds=WARMUP, iterations=1)
    record_rate(benchmark, pipelines.BATCH_SIZE)


@pytest.mark.parametrize("case", ["P2", "P3"])
def test_torchvision_dataloader(benchmark, corpus_root, case):
    pytest.importorskip("torchvision")
    from bench import torch_loader

    batches = torch_loader.batches(corpus_root, case)
    benchmark.group = case
    benchmark.extra_info["pipeline"] = f"torchvision DataLoader ({case} transforms)"
    try:
        benchmark.pedantic(lambda: next(batches), rounds=ROUNDS, warmup_rounds=WARMUP,
                           iterations=1)
    finally:
        batches.close()
    record_rate(benchmark, pipelines.BATCH_SIZE)
