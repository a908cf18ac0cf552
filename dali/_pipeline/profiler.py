"""`pipe.profile()` and `python -m dali profile`: where a pipeline's time goes (beyond DALI).

The pipeline runs `iterations` batches after `warmup` ones, as fast as it can (the consumer does
nothing), while the executor records one event per operator run (`Plan.events`: start, end,
the process's CPU time meanwhile, bytes produced) and the profiler times what happens outside
the executor: the external sources' Python callbacks (on the caller's thread, before each
iteration) and each `run()` call, and looks at the prefetch queue before each one.

Per operator the report gives the time per batch (median and 99th percentile), its share of the
executor's time, the threads it kept busy on average (process CPU time over wall time: 1.0 is
one core), the bytes it produced per batch, and the verdict says which operator bounds the
throughput and whether the pipeline is CPU-bound (the bottleneck keeps the threads busy),
parallelism-bound (it uses fewer threads than the pipeline has), IO-bound (a reader waiting,
CPU well below one core) or Python-bound (Python callbacks or `python_function`, which hold the
GIL).  `ProfileReport.table()` is the terminal text; `write_svg(path)` draws the shares and a
timeline of the last iterations.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from dali import _roles

_TIMELINE_ITERATIONS = 5


class OperatorProfile:
    """One operator's figures over the profiled iterations (times in milliseconds)."""

    def __init__(self, name, schema_name, runs, p50_ms, p99_ms, total_ms, share, busy_threads,
                 bytes_per_batch, kind):
        self.name = name
        self.schema_name = schema_name
        self.runs = runs
        self.p50_ms = p50_ms
        self.p99_ms = p99_ms
        self.total_ms = total_ms
        self.share = share
        self.busy_threads = busy_threads
        self.bytes_per_batch = bytes_per_batch
        self.kind = kind          # "reader", "python" or "compute"

    def as_dict(self):
        return dict(vars(self))


class ProfileReport:
    """The result of `Pipeline.profile`.

    Attributes
    ----------
    operators : list of OperatorProfile
        Slowest (largest share) first.
    iterations, batch_size, num_threads : int
    wall_s : float
        Time of the profiled iterations.
    callbacks_ms : float
        Python source callbacks per iteration (outside the executor).
    queue_ready : float
        Mean number of batches already done in the prefetch queue when `run()` was called.
    bottleneck : str
        The operator that bounds the throughput.
    bound : str
        "CPU", "parallelism", "IO" or "Python".
    verdict : str
        One paragraph saying so.
    timeline : list of (name, start_s, end_s)
        Operator runs of the last iterations, relative to the first of them.
    """

    def __init__(self, operators, iterations, batch_size, num_threads, wall_s, callbacks_ms,
                 queue_ready, timeline):
        self.operators = operators
        self.iterations = iterations
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.wall_s = wall_s
        self.callbacks_ms = callbacks_ms
        self.queue_ready = queue_ready
        self.timeline = timeline
        self.bottleneck, self.bound, self.verdict = self._judge()

    @property
    def samples_per_s(self):
        return self.iterations * self.batch_size / self.wall_s if self.wall_s > 0 else 0.0

    def _judge(self):
        per_batch_ms = 1000.0 * self.wall_s / max(self.iterations, 1)
        top = self.operators[0] if self.operators else None
        if top is None or self.callbacks_ms > top.p50_ms:
            return ("external_source callbacks", "Python",
                    f"Python-bound: the sources' callbacks take {self.callbacks_ms:.2f} ms of "
                    f"each {per_batch_ms:.2f} ms batch, on the caller's thread and holding the "
                    "GIL; return whole batches (batch=True) from NumPy code, or fewer, larger "
                    "arrays.")
        head = (f"{top.name} ({top.schema_name}) bounds the throughput: "
                f"{100 * top.share:.0f}% of the executor's time, {top.p50_ms:.2f} ms a batch")
        if top.kind == "python":
            return top.name, "Python", (
                f"Python-bound: {head}; it runs Python code holding the GIL (one core at "
                "most): move the work into DALI operators where one exists.")
        if top.kind == "reader" and top.busy_threads < 0.5:
            return top.name, "IO", (
                f"IO-bound: {head} while the process uses {top.busy_threads:.2f} cores: it "
                "waits for storage; faster storage, a larger read-ahead (prefetch_queue_depth) "
                "or smaller files help, more threads do not.")
        if top.busy_threads < 0.75 * self.num_threads and self.num_threads > 1:
            return top.name, "parallelism", (
                f"Parallelism-bound: {head} on {top.busy_threads:.1f} of {self.num_threads} "
                "threads: the batch does not split over all threads (few or very uneven "
                "samples), or the operator runs on one thread.")
        return top.name, "CPU", (
            f"CPU-bound: {head}, keeping {top.busy_threads:.1f} of {self.num_threads} threads "
            "busy: more threads (num_threads) or cheaper arguments help.")

    def table(self):
        """The report as terminal text."""
        lines = [f"{self.iterations} iterations of {self.batch_size} samples, "
                 f"{self.num_threads} threads: {self.samples_per_s:.1f} samples/s "
                 f"({1000 * self.wall_s / max(self.iterations, 1):.2f} ms a batch)",
                 ""]
        head = ("operator", "p50 ms", "p99 ms", "share", "threads", "MB/batch")
        rows = [(f"{o.name} ({o.schema_name})", f"{o.p50_ms:.3f}", f"{o.p99_ms:.3f}",
                 f"{100 * o.share:.1f}%", f"{o.busy_threads:.2f}",
                 f"{o.bytes_per_batch / 1e6:.2f}") for o in self.operators]
        rows.append(("external_source callbacks (Python)", f"{self.callbacks_ms:.3f}", "", "",
                     "", ""))
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        for r in [head, *rows]:
            lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                   for i, (c, w) in enumerate(zip(r, widths, strict=True))))
        lines += ["", f"prefetch queue: {self.queue_ready:.2f} batches ready on average when "
                      "run() was called", "", self.verdict]
        return "\n".join(lines)

    def __str__(self):
        return self.table()

    def write_svg(self, path):
        """An SVG with each operator's share (bars) and a timeline of the last iterations."""
        with open(path, "w") as f:
            f.write(_svg(self))


def _kind(op):
    if isinstance(op, _roles.Reader):
        return "reader"
    if op.spec.schema.name == "python_function" or (isinstance(op, _roles.Source)
                                                      and op.has_callback):
        return "python"
    return "compute"


def _progress(total, enabled):
    """A progress bar: tqdm's where it is installed (`pip install dali[progress]`), else a
    counter on stderr when it is a terminal."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return _Counter(total) if sys.stderr.isatty() else None
    return tqdm(total=total, desc="profiling", unit="batch")


class _Counter:
    def __init__(self, total):
        self.total, self.n = total, 0

    def update(self, n=1):
        self.n += n
        sys.stderr.write(f"\rprofiling: {self.n}/{self.total} batches")
        sys.stderr.flush()

    def close(self):
        sys.stderr.write("\n")


def profile(pipe, iterations=100, warmup=5, progress=True):
    """Run `pipe` for `warmup` + `iterations` batches and return its `ProfileReport`."""
    if iterations < 1 or warmup < 0:
        raise ValueError(f"profile: iterations must be >= 1 and warmup >= 0, got "
                         f"{iterations} and {warmup}")
    pipe.build()
    for _ in range(warmup):
        _next(pipe)
    ex = pipe._executor
    sched = pipe._sched
    setup = pipe._iter_setup
    callback_ns = [0]

    def timed_setup():
        t0 = time.perf_counter_ns()
        try:
            return setup()
        finally:
            callback_ns[0] += time.perf_counter_ns() - t0

    bar = _progress(iterations, progress)
    ready = []
    ex.plan.events = events = []
    pipe._iter_setup = timed_setup
    start = time.perf_counter()
    try:
        for _ in range(iterations):
            ready.append(sum(1 for future, *_ in sched.ready if future.done()))
            _next(pipe)
            if bar is not None:
                bar.update(1)
        wall = time.perf_counter() - start
    finally:
        del pipe._iter_setup
        ex.plan.events = None
        if bar is not None:
            bar.close()
    return _report(pipe, events, iterations, wall, callback_ns[0] / 1e6 / iterations,
                   float(np.mean(ready)))


def _next(pipe):
    try:
        pipe.run()
    except StopIteration:
        pipe.reset()
        pipe.run()


def _report(pipe, events, iterations, wall, callbacks_ms, queue_ready):
    ex = pipe._executor
    ev = np.array(events, dtype=np.int64).reshape(-1, 5)
    busy_total = float((ev[:, 2] - ev[:, 1]).sum()) if len(ev) else 0.0
    ops = []
    for k, op in enumerate(ex.ops):
        mine = ev[ev[:, 0] == k]
        if not len(mine):
            continue
        dur = (mine[:, 2] - mine[:, 1]).astype(np.float64)
        ops.append(OperatorProfile(
            op.spec.name, op.spec.schema.name, len(mine),
            float(np.percentile(dur, 50)) / 1e6, float(np.percentile(dur, 99)) / 1e6,
            float(dur.sum()) / 1e6, float(dur.sum()) / busy_total if busy_total else 0.0,
            float(mine[:, 3].sum() / dur.sum()) if dur.sum() else 0.0,
            float(mine[:, 4].mean()), _kind(op)))
    ops.sort(key=lambda o: -o.share)
    timeline = []
    if len(ev):
        per_iter = len(ex.ops)
        last = ev[-min(len(ev), per_iter * _TIMELINE_ITERATIONS):]
        t0 = last[0, 1]
        timeline = [(ex.ops[int(k)].spec.name, (s - t0) / 1e9, (e - t0) / 1e9)
                    for k, s, e, _, _ in last]
    return ProfileReport(ops, iterations, pipe.max_batch_size, pipe.num_threads, wall,
                         callbacks_ms, queue_ready, timeline)


def _svg(report):
    """Bars of each operator's share, then the timeline of the last iterations."""
    width, left, row = 900, 280, 22
    names = [o.name for o in report.operators]
    bars_h = row * len(names) + 40
    lanes = {n: i for i, n in enumerate(names)}
    span = max((e for _, _, e in report.timeline), default=1e-9) or 1e-9
    time_h = row * len(names) + 60
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{bars_h + time_h + 40}" font-family="sans-serif" font-size="12">',
           f'<text x="10" y="20" font-size="14">{_esc(report.verdict.split(":")[0])}: '
           f'{report.samples_per_s:.1f} samples/s, bottleneck {_esc(report.bottleneck)}</text>']
    colors = {"reader": "#e69f00", "python": "#d55e00", "compute": "#0072b2"}
    for i, o in enumerate(report.operators):
        y = 40 + i * row
        w = (width - left - 80) * o.share
        out.append(f'<text x="10" y="{y + 14}">{_esc(o.name)}</text>')
        out.append(f'<rect x="{left}" y="{y + 2}" width="{w:.1f}" height="{row - 6}" '
                   f'fill="{colors[o.kind]}"/>')
        out.append(f'<text x="{left + w + 6:.1f}" y="{y + 14}">{100 * o.share:.1f}% '
                   f'({o.p50_ms:.2f} ms)</text>')
    y0 = bars_h + 30
    out.append(f'<text x="10" y="{y0}" font-size="14">timeline of the last iterations '
               f'({1000 * span:.1f} ms)</text>')
    for name, s, e in report.timeline:
        if name not in lanes:
            continue
        y = y0 + 10 + lanes[name] * row
        x = left + (width - left - 20) * s / span
        w = max((width - left - 20) * (e - s) / span, 0.5)
        out.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row - 6}" '
                   f'fill="#009e73"><title>{_esc(name)}: {1000 * (e - s):.3f} ms</title></rect>')
    for name, i in lanes.items():
        out.append(f'<text x="10" y="{y0 + 24 + i * row}">{_esc(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _esc(text):
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))
