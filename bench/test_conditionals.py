"""Conditionals: an if/else whose predicate holds on half the batch (branch A: resize to
224x224, branch B: rotate by 15° into 224x224) against a pipeline that runs both branches on
the whole batch.  The goal: the if/else costs no more than both branches.

Inputs are 64 decoded corpus images fed by external_source, so decoding does not count.
"""

from __future__ import annotations

import cv2
import pytest

from bench import measure, pipelines

ROUNDS = 15


@pytest.fixture(scope="module")
def images(corpus_root):
    files = measure.corpus_files(corpus_root)[:pipelines.BATCH_SIZE]
    return [cv2.cvtColor(cv2.imread(f), cv2.COLOR_BGR2RGB) for f in files]


@pytest.mark.parametrize("graph", [pipelines.if_else, pipelines.both_branches],
                         ids=lambda g: g.__name__)
def test_conditional(benchmark, backend, make_pipeline, images, graph):
    pipe = make_pipeline(graph, images=images, predicate=pipelines.half_predicate(len(images)),
                         conditionals=graph is pipelines.if_else)
    benchmark.group = "conditionals"
    benchmark.pedantic(pipe.run, rounds=ROUNDS, warmup_rounds=2, iterations=1)
