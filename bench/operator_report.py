"""The `operators` section of bench.report: every operator alone, on dali and on real DALI.

For each case of bench/cases/, input set ("image", "small") and backend, two pipelines
are built once (batch 64, num_threads=2, device_id=None, the same seed): the operator fed by
`external_source`, and the baseline (the same sources feeding `.shape()` only, see
`OpCase.baseline` and bench/opcase.py's docstring for why).  Both
are synchronous (`exec_async=False, exec_pipelined=False`): with prefetching, batches computed
ahead while a pipeline sat idle would be timed as free (an operator taking tens of ms read as
0.05 ms), and work left queued would run during the next measurement.  Each repeat times both
on the same number of iterations (the pipeline that goes first alternates, and so does the
backend); the time per batch is the median over repeats of (operator pipeline - baseline), in
ms.  An operator a
backend lacks, or a case that fails to build or run there, is reported as "n/a" with the
reason; the run goes on.
"""

from __future__ import annotations

import gc
import statistics
import time

from bench import backends, measure, opcase, operators, pipelines

MAX_ITERATIONS = 400
# Cases without inputs (readers, input operators) are timed over at least this many batches:
# a reader reads its next batch on its own thread even in a synchronous pipeline, so the batch
# read while the pipeline sat between measurements comes free, and timed alone (a batch
# slower than the window) it would count only the wait for it.
MIN_SOURCE_ITERATIONS = 4
FLOOR_MS = 0.01     # below this a time is not told apart from zero


def reason(exc):
    """A one-line reason from a (possibly multi-line, traceback-laden) pipeline error."""
    text = str(exc)
    if "encountered:" in text:
        text = text.split("encountered:", 1)[1]
    skip = ("Critical error", "Current pipeline object", "C++ context", "Error in CPU operator",
            "which was used", "File ", "return ", "out = ", "Traceback")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    useful = [ln for ln in lines if not ln.startswith(skip) and not ln.startswith("  ")]
    msg = (useful or lines or [type(exc).__name__])[0]
    msg = msg.replace("|", "/")
    return msg if len(msg) <= 140 else msg[:137] + "..."


def _per_batch(pipe, iterations):
    w0 = time.perf_counter()
    for _ in range(iterations):
        pipe.run()
    return (time.perf_counter() - w0) / iterations


def _prepare(backend, case, size, warmup, window):
    """(operator pipeline, baseline pipeline, iterations per measurement) or raises."""
    op = pipelines.build(backend, opcase.op_graph(case, size), sync=True)
    base = pipelines.build(backend, opcase.baseline_graph(case, size), sync=True)
    for pipe in (base, op):
        for _ in range(max(1, warmup)):
            t = _per_batch(pipe, 1)
            if t > window:          # slow: one warm-up batch is enough
                break
    least = MIN_SOURCE_ITERATIONS if case.baseline == "idle" else 1
    return op, base, max(least, min(MAX_ITERATIONS, round(window / max(t, 1e-6))))


def measure_case(loaded, case, size, repeats, warmup, window):
    """{label: list of ms per batch (one per repeat) or an "n/a" reason string}."""
    res, pipes = {}, {}
    for b in loaded:
        if case.op and not backends.has_operator(b, case.op):
            res[b.label] = f"no fn.{case.op}"
            continue
        if case.missing_modules():
            res[b.label] = f"needs {', '.join(case.missing_modules())}"
            continue
        try:
            pipes[b.label] = _prepare(b, case, size, warmup, window)
            res[b.label] = []
        except Exception as e:  # noqa: BLE001  (any failure is a row of the table)
            res[b.label] = reason(e)
    for rep in range(repeats):
        for b in backend_order(loaded, rep):
            if b.label not in pipes:
                continue
            op, base, its = pipes[b.label]
            try:
                t = {}
                for name, pipe in (("op", op), ("base", base))[::1 if rep % 2 == 0 else -1]:
                    t[name] = _per_batch(pipe, its)
                res[b.label].append(1e3 * (t["op"] - t["base"]))
            except Exception as e:  # noqa: BLE001
                res[b.label] = reason(e)
                del pipes[b.label]
    pipes.clear()
    gc.collect()
    return res


def backend_order(loaded, rep):
    """The backends, ours first on even repeats and the peer first on odd ones."""
    return loaded if rep % 2 == 0 else loaded[::-1]


def why_no_case(name):
    """Why operator `name` has no row to measure: a GPU-only operator (no CPU backend in DALI,
    none in dali) is measured by bench/gpu.py's pipelines on a device, if at all."""
    from dali import _registry

    try:
        cpu = _registry.get(name).schema.cpu
    except (KeyError, AttributeError):
        cpu = True
    return "no case in bench/cases/" if cpu else "GPU-only operator (no CPU backend, in DALI " \
        "as in dali): nothing to compare on the CPU"


def measure_all(loaded, log, *, repeats, warmup, window, only=None):
    """{row name: {size: {label: [ms per repeat] or reason}}} for every row of the report."""
    out = {}
    for name in operators.row_names(only):
        case = operators.CASES.get(name)
        if case is None:
            out[name] = why_no_case(name)
            log(f"  {name}: {out[name]}")
            continue
        out[name] = {}
        for size in opcase.SIZES:
            r = measure_case(loaded, case, size, repeats, warmup, window)
            out[name][size] = r
            log(f"  {name:38s} {size:5s} " + "  ".join(
                f"{label} {_fmt_ms(v)}" for label, v in r.items()))
        measure.settle(0.1)
    return out


# -- the table -----------------------------------------------------------------------------------
def _median(v):
    return statistics.median(v) if isinstance(v, list) and v else None


def _fmt_ms(v):
    m = _median(v) if isinstance(v, list) else None
    if m is None:
        return "n/a" if isinstance(v, str) or v is None else "—"
    return f"{m:.3f}" if abs(m) < 1 else f"{m:.2f}"


def _resolved(v):
    """The median of `v` when it stands out of the noise: above FLOOR_MS and above twice the
    median absolute deviation of the repeats; else None."""
    m = _median(v)
    if m is None:
        return None
    mad = statistics.median([abs(x - m) for x in v])
    return m if m > max(FLOOR_MS, 2 * mad) else None


def _ratio(ours, peer):
    a, b = _resolved(ours), _resolved(peer)
    return None if a is None or b is None else a / b


def table(results, labels=("dali", "DALI")):
    """The markdown table of `measure_all`'s results, with notes for every "n/a"."""
    ours, peer = labels
    head = ["operator"]
    for size in opcase.SIZES:
        head += [f"{size}: {ours} ms", f"{peer} ms", "ratio"]
    rows = ["| " + " | ".join(head) + " |", "|---|" + "---:|---:|---:|" * len(opcase.SIZES)]
    notes, slower, measured = {}, dict.fromkeys(opcase.SIZES, 0), dict.fromkeys(
        opcase.SIZES, 0)

    def cell(name, size, label, v):
        if isinstance(v, list):
            return _fmt_ms(v)
        why = v or "not measured"
        key = (label, why)
        notes.setdefault(key, []).append(f"{name} ({size})")
        return f"n/a [{list(notes).index(key) + 1}]"

    for name, per_size in results.items():
        if not isinstance(per_size, dict):
            key = ("dali", per_size or "no case in bench/cases/")
            notes.setdefault(key, []).append(name)
            rows.append(f"| {name} | " + " | ".join(
                [f"n/a [{list(notes).index(key) + 1}]"] + ["—"] * 5) + " |")
            continue
        cells = [name]
        for size in opcase.SIZES:
            r = per_size.get(size, {})
            a, b = r.get(ours), r.get(peer)
            ratio = _ratio(a, b)
            if ratio is not None:
                measured[size] += 1
                slower[size] += ratio > 1.0
            mark = "—" if ratio is None else (f"**{ratio:.2f}** ▲" if ratio > 1.0
                                              else f"{ratio:.2f}")
            cells += [cell(name, size, ours, a), cell(name, size, peer, b), mark]
        rows.append("| " + " | ".join(cells) + " |")
    lines = ["\n".join(rows), ""]
    lines.append("Slower than DALI (ratio > 1.0, marked ▲): " + "; ".join(
        f"{size}: {slower[size]} of {measured[size]}" for size in opcase.SIZES) + ".")
    if notes:
        lines += ["", "n/a:", ""]
        for i, ((label, why), where) in enumerate(notes.items(), 1):
            lines.append(f"{i}. {label}: {why} — {', '.join(where)}")
    return "\n".join(lines)


def section(results, repeats, window):
    """The report's markdown for the operators section."""
    return "\n".join([
        "### Operators alone (batch 64, num_threads=2; ms per batch)", "",
        "external_source of a prepared batch → the operator, minus the same sources feeding "
        "`.shape()` only (cases without inputs: minus one `fn.zeros` of one-byte samples), "
        "synchronous pipelines (no prefetching) "
        f"(median over {repeats} interleaved repeats of about {1e3 * window:.0f} ms each); "
        "inputs per bench/opcase.py: image = 224×224×3 uint8 (or the operator's natural "
        "input at that size), small = 8×8×3. ratio = dali / DALI (lower is better); — where a "
        f"side is n/a or within noise (its median is below {FLOOR_MS} ms or below twice the "
        "median absolute deviation of its repeats; negative times are such noise).", "",
        table(results), ""])
