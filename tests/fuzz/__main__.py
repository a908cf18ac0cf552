"""``python -m tests.fuzz``: a fuzzing campaign against the image decoders.

Options: ``--count N`` mutants (2000), ``--seed S`` (0), ``--jobs J`` worker processes (one per
core), ``--memory-mb M`` address-space cap of a worker (2048), ``--timeout T`` seconds an input
may take (10), ``--no-keep`` not to save failing inputs under tests/fuzz/regressions/,
``--replay`` to run the regression files instead, ``--atheris [RUNS]`` for coverage-guided
fuzzing with atheris (skipped when it is not installed).  Exits with 1 when an input failed.
"""

from __future__ import annotations

import argparse
import sys
import time

from . import campaign, runner


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--memory-mb", type=int, default=2048)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--no-keep", action="store_true")
    parser.add_argument("--replay", action="store_true")
    parser.add_argument("--atheris", type=int, nargs="?", const=20000, default=None,
                        metavar="RUNS")
    args = parser.parse_args(argv)
    if args.atheris is not None:
        from . import coverage_guided  # atheris may be absent
        return coverage_guided.main(args.atheris, args.memory_mb << 20)
    start = time.perf_counter()
    memory = args.memory_mb << 20
    if args.replay:
        outcomes = campaign.replay(sorted(runner.REGRESSIONS.glob("*.bin")), args.jobs, memory,
                                   args.timeout)
    else:
        outcomes = campaign.campaign(args.count, args.seed, args.jobs, memory, args.timeout)
    print(campaign.report(outcomes))
    print(f"{len(outcomes)} inputs in {time.perf_counter() - start:.1f} s")
    if not args.no_keep and not args.replay:
        for path in runner.keep(outcomes):
            print(f"kept {path}")
    return 1 if any(o.failed for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
