"""GPU image pipelines (issue #15): P1, P2, P2 rrc and P3 of `bench.pipelines` with the decoder
on `device="mixed"` and the augmentations that follow it (resize, random_resized_crop,
crop_mirror_normalize with a coin-flip mirror) on the GPU, dali against real DALI 2.4's GPU path
in the same run: same graphs, corpus, batch 64 and num_threads, on CUDA device 0.

dali's mixed decoders decode on the CPU threads and upload; real DALI's decode with nvJPEG
(with the hardware decoder where the GPU has one), so P1 mostly compares the two decoders.
dali's CPU variant of each pipeline (the same graph on the CPU) runs in the same repeats, so
the table also says what the GPU path gains over dali's own CPU path on that machine.

Without a CUDA device (no CuPy, or CuPy finds none) the section logs one line saying why and
returns its rows marked skipped: it never fails on a machine without a GPU.

    python -m bench.gpu                 # both backends, interleaved repeats
"""

from __future__ import annotations

import dataclasses
import math

from bench import backends, corpus, measure, pipelines
from dali import _gpu

DEVICE_ID = 0
CASES = pipelines.IMAGE_CASES
CPU_PATH = "dali cpu"                    # the label of dali's CPU variant of a pipeline


@dataclasses.dataclass(frozen=True)
class Row:
    """One pipeline's measurements: {label: [Timing per repeat]} ("dali", "DALI", and
    `CPU_PATH` for dali's CPU variant), or why it was not measured (`skipped`); `device` names
    the GPU."""

    key: str
    title: str
    timings: dict
    skipped: str | None = None
    device: str | None = None


def unavailable():
    """Why the GPU pipelines cannot run here (None when they can)."""
    if not _gpu.cupy_available():
        return f"CuPy is not installed ({_gpu.INSTALL_HINT})"
    if _gpu.device_count() == 0:
        return "CuPy finds no CUDA device (no GPU, or no driver for its CUDA version)"
    return None


def device_name(device_id=DEVICE_ID):
    """The CUDA device's name, as CuPy reports it."""
    cupy = _gpu.require("bench.gpu", device_id)
    name = cupy.cuda.runtime.getDeviceProperties(device_id)["name"]
    return name.decode() if isinstance(name, bytes) else name


def build(backend, case, root, batch_size=pipelines.BATCH_SIZE,
          num_threads=pipelines.NUM_THREADS):
    """The GPU variant of `case`'s graph as a built pipeline of `backend` on DEVICE_ID."""
    return pipelines.build(backend, case.graph, batch_size=batch_size, num_threads=num_threads,
                           device_id=DEVICE_ID, root=root, device="gpu")


def measure_gpu(loaded, root, repeats, iterations, warmup, log,
                batch_size=pipelines.BATCH_SIZE, num_threads=pipelines.NUM_THREADS):
    """[Row per case]: each GPU pipeline on each backend of `loaded` (batch 64 and 2 threads
    unless told), interleaved (the first backend alternates between repeats); rows marked
    skipped without a device."""
    reason = unavailable()
    if reason is not None:
        log(f"  gpu skipped: {reason}")
        return [Row(c.key, c.title, {}, skipped=reason) for c in CASES]
    name = device_name()
    log(f"  gpu: {name}")
    timings = {c.key: {} for c in CASES}
    ours = [b for b in loaded if b.label == "dali"]
    for rep in range(repeats):
        for case in CASES:
            runs = [(b, b.label, True) for b in loaded] + [(b, CPU_PATH, False) for b in ours]
            for b, label, on_gpu in runs if rep % 2 == 0 else runs[::-1]:
                if not all(backends.has_operator(b, op) for op in case.needs):
                    continue
                pipe = (build(b, case, root, batch_size=batch_size, num_threads=num_threads)
                        if on_gpu else
                        pipelines.build(b, case.graph, batch_size=batch_size,
                                        num_threads=num_threads, root=root))
                t = measure.pipeline_timing(pipe, iterations, warmup)
                del pipe
                measure.settle(max(0.1, 2.5 * t.wall / iterations))
                timings[case.key].setdefault(label, []).append(t)
                log(f"  gpu {case.key:7s} {label:8s} {t.rate:8.1f} img/s  "
                    f"{t.cpu_ms:.2f} CPU ms/img")
    return [Row(c.key, c.title, timings[c.key], device=name) for c in CASES]


def _fmt(x, spec):
    return "—" if math.isnan(x) else format(x, spec)


def table(rows):
    """The markdown table of `measure_gpu`'s rows (medians; ratio = median of the paired
    per-repeat ratios dali / DALI; GPU / CPU path: dali's GPU pipeline against its CPU
    variant, likewise)."""
    lines = ["| pipeline (GPU) | dali img/s | DALI img/s | ratio | dali CPU ms/img | "
             "DALI CPU ms/img | dali CPU path img/s | GPU / CPU path |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r.skipped:
            lines.append(f"| {r.key}: {r.title} | *skipped: {r.skipped}* | — | — | — | — | — "
                         "| — |")
            continue
        ours, peer = r.timings.get("dali", []), r.timings.get("DALI", [])
        cpu_path = r.timings.get(CPU_PATH, [])
        lines.append(
            f"| {r.key}: {r.title} | {_fmt(measure.median([t.rate for t in ours]), '.1f')} | "
            f"{_fmt(measure.median([t.rate for t in peer]), '.1f')} | "
            f"{_fmt(measure.paired_ratio(ours, peer), '.2f')} | "
            f"{_fmt(measure.median([t.cpu_ms for t in ours]), '.2f')} | "
            f"{_fmt(measure.median([t.cpu_ms for t in peer]), '.2f')} | "
            f"{_fmt(measure.median([t.rate for t in cpu_path]), '.1f')} | "
            f"{_fmt(measure.paired_ratio(ours, cpu_path), '.2f')} |")
    devices = sorted({r.device for r in rows if r.device})
    if devices:
        lines.append(f"\nOn {', '.join(devices)} (device_id={DEVICE_ID}).")
    return "\n".join(lines)


def main(argv=None):
    a, loaded, log = pipelines.standalone(__doc__, argv, options=[(
        "--num-threads", dict(type=int, default=pipelines.NUM_THREADS,
                              help="CPU threads of both backends' pipelines"))])
    root = "not used" if unavailable() else str(corpus.locate())
    rows = measure_gpu(loaded, root, a.repeats, a.iterations, a.warmup, log,
                       num_threads=a.num_threads)
    print(table(rows))
    return rows


if __name__ == "__main__":
    main()
