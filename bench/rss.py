"""Resident memory of the P2 training pipeline after given numbers of iterations.

Run in a fresh process per backend, so that nothing else in the process moves its RSS:

    python -m bench.rss --backend dali --iterations 200 2000

prints one JSON object: {"backend", "iterations": [...], "rss_bytes": [...], "seconds": [...]}.
"""

from __future__ import annotations

import argparse
import gc
import json
import time

from bench import backends, corpus, measure, pipelines


def p2_rss(backend_name, root, iterations):
    """RSS (bytes) after each count in `iterations` (ascending) of P2, and the elapsed time."""
    pipe = pipelines.build(backends.load(backend_name), pipelines.training, root=str(root))
    done, rss, seconds = 0, [], []
    start = time.perf_counter()
    for target in sorted(iterations):
        while done < target:
            pipe.run()
            done += 1
        gc.collect()
        rss.append(measure.rss_bytes())
        seconds.append(round(time.perf_counter() - start, 2))
    return rss, seconds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=backends.NAMES, default=backends.OURS)
    ap.add_argument("--iterations", type=int, nargs="+", default=[200, 2000])
    ap.add_argument("--corpus", default=None, help="corpus directory (default: bench.corpus)")
    a = ap.parse_args(argv)
    root = a.corpus or corpus.locate()
    rss, seconds = p2_rss(a.backend, root, a.iterations)
    print(json.dumps({"backend": a.backend, "iterations": sorted(a.iterations),
                      "rss_bytes": rss, "seconds": seconds}))


if __name__ == "__main__":
    main()
