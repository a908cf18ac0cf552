"""A campaign: mutants of the seeds run through the decoders, and its report."""

from __future__ import annotations

import collections

from . import mutate, runner, seeds


def campaign(count, seed=0, jobs=None, memory=2 * runner.GiB, timeout=10.0):
    """Outcomes of `count` mutants (deterministic for `seed`), half decoded as RGB, half as
    ANY_DATA."""
    outcomes = [runner.Outcome(f"{name}+{'+'.join(labels)}", fmt, data,
                               "RGB" if k % 2 == 0 else "ANY_DATA")
                for k, (name, fmt, labels, data) in
                enumerate(mutate.mutants(seeds.seeds(), count, seed))]
    return runner.run(outcomes, jobs, memory, timeout)


def replay(paths, jobs=None, memory=2 * runner.GiB, timeout=10.0):
    """Outcomes of regression files, each decoded as RGB and as ANY_DATA."""
    outcomes = []
    for path in paths:
        fmt = path.name.split("-")[1]
        outcomes += [runner.Outcome(path.name, fmt, path.read_bytes(), t)
                     for t in ("RGB", "ANY_DATA")]
    return runner.run(outcomes, jobs, memory, timeout) if outcomes else []


def report(outcomes):
    """A plain-text summary: inputs and outcomes per format, failures, the worst peak RSS."""
    by_format = collections.defaultdict(collections.Counter)
    for o in outcomes:
        by_format[o.format][o.status] += 1
    kinds = ("ok", "refused", "unexpected", "crash", "hang")
    lines = [f"{'format':8} {'inputs':>7} " + " ".join(f"{k:>10}" for k in kinds)]
    for fmt in sorted(by_format):
        c = by_format[fmt]
        lines.append(f"{fmt:8} {sum(c.values()):7d} " + " ".join(f"{c[k]:10d}" for k in kinds))
    total = collections.Counter(o.status for o in outcomes)
    lines.append(f"{'all':8} {len(outcomes):7d} " + " ".join(f"{total[k]:10d}" for k in kinds))
    if outcomes:
        worst = max(outcomes, key=lambda o: o.rss_kb)
        lines.append(f"worst peak RSS: {worst.rss_kb / 1024:.0f} MiB ({worst.name}, "
                     f"{len(worst.data)} bytes, {worst.output_type}, {worst.status})")
        lines.append(f"largest worker peak RSS: "
                     f"{max(o.worker_peak_kb for o in outcomes) / 1024:.0f} MiB")
        largest = max(outcomes, key=lambda o: o.bytes)
        lines.append(f"largest output: {largest.bytes} bytes ({largest.name}, "
                     f"shape {largest.shape})")
    for o in outcomes:
        if o.failed:
            what = "absurd output" if o.absurd else o.status
            lines.append(f"FAILED {what}: {o.name} ({o.format}, {o.output_type}, "
                         f"rss {o.rss_kb // 1024} MiB): {o.error[:300]}")
    return "\n".join(lines)
