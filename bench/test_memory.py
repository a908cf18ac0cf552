"""Memory: RSS of the P2 training pipeline after 200 and after 2000 iterations, each backend
in its own process (bench/rss.py).  The goal: growth between the two under 1%.

One round runs the whole measurement (minutes); extra_info holds the RSS figures.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

from bench import pipelines
from bench.suite import require

ITERATIONS = (200, 2000)
REPO = pathlib.Path(__file__).resolve().parent.parent


def test_p2_rss_growth(benchmark, backend, corpus_root):
    require(backend, pipelines.CASES_BY_KEY["P2"].needs)
    cmd = [sys.executable, "-m", "bench.rss", "--backend", backend.name, "--corpus", corpus_root,
           "--iterations", *map(str, ITERATIONS)]
    benchmark.group = "memory: P2 RSS"
    result = benchmark.pedantic(
        lambda: json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True,
                                          cwd=REPO).stdout),
        rounds=1, iterations=1)
    first, last = result["rss_bytes"]
    benchmark.extra_info.update({f"rss_MiB_after_{n}": round(r / 2**20, 1)
                                 for n, r in zip(ITERATIONS, result["rss_bytes"], strict=True)})
    benchmark.extra_info["growth_percent"] = round(100 * (last - first) / first, 2)
