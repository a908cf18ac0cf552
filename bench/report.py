"""Run every benchmark with interleaved repeats and print (and store) the results table.

    python -m bench.report                 # full run (< 10 minutes on 2 cores); updates RESULTS.md
    python -m bench.report --quick         # smoke run: one short repeat, RESULTS.md untouched
    python -m bench.report --sections operators --ops resize,flip --no-write

The machine is shared and noisy, so each repeat runs every configuration once, dali and real
DALI back to back (which one goes first alternates between repeats), on a pipeline built
afresh; figures are medians over repeats, and ratios are medians of the per-repeat (paired)
ratios.  Besides wall-clock throughput, process CPU time per sample is reported: it is much
less sensitive to other processes on the machine.

Sections: `images` (P1, P2, P2 rrc, P3, the cv2.imdecode ceiling, torchvision's DataLoader when
installed; P2 also with region fusion off, dali only), `executor` (per-operator overhead in
graph and debug mode), `conditionals`, `memory` (P2 RSS growth, in a subprocess per backend),
`ssd` (the SSD300 training pipeline of bench/ssd.py on a generated COCO-style data set),
`efficientnet`, `speech` and `video` (the end-to-end pipelines of bench/efficientnet.py,
bench/speech.py and bench/video.py; the last two skipped without soundfile or av),
`large` (the image pipelines on camera-sized photos, exact and with decode scaling,
bench/large_images.py; its corpus takes about ten minutes to make the first time),
`operators` (every operator alone, bench/operator_report.py; `--ops a,b` measures a subset).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import functools
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np

from bench import (
    backends,
    corpus,
    efficientnet,
    features,
    gpu,
    large_images,
    measure,
    operator_report,
    pipelines,
    speech,
    ssd,
    video,
)

RESULTS = pathlib.Path(__file__).resolve().parent / "RESULTS.md"
BEGIN, END = "<!-- bench.report:begin -->", "<!-- bench.report:end -->"
SECTIONS = ("images", "executor", "conditionals", "memory", "features", "ssd", "efficientnet",
            "speech", "video", "large", "gpu", "operators")
# Sections that need an optional module, and that module.
NEEDS = {"speech": "soundfile", "video": "av"}
CHAIN_LENGTHS = (10, 40)


@dataclasses.dataclass(frozen=True)
class Settings:
    """How long each measurement runs."""

    repeats: int = 5
    image_iterations: int = 12      # batches of 64 per image-pipeline measurement
    chain_iterations: int = 300     # iterations per executor-overhead measurement
    debug_iterations: int = 40      # iterations per debug-mode measurement
    cond_iterations: int = 8        # iterations per conditionals measurement
    memory_iterations: tuple = (200, 500, 1000, 2000)   # growth: first to last
    op_window: float = 0.05         # seconds per operator measurement (each of op and baseline)
    warmup: int = 3
    large_repeats: int = 3          # large photos: repeats, and batches of 16 per measurement
    large_iterations: int = 8
    speech_iterations: int = 4      # batches of 64 files per speech measurement


QUICK = Settings(repeats=1, image_iterations=3, chain_iterations=30, debug_iterations=5,
                 cond_iterations=2, memory_iterations=(10, 20), op_window=0.01, warmup=1,
                 large_repeats=1, large_iterations=2, speech_iterations=1)


median = measure.median


def paired_ratio(num, den, key):
    """Median over repeats of num[i].key / den[i].key."""
    return median([getattr(a, key) / getattr(b, key) for a, b in zip(num, den, strict=False)])


# -- measuring ---------------------------------------------------------------------------------
def backend_order(loaded, rep):
    """The backends, ours first on even repeats and the peer first on odd ones."""
    return loaded if rep % 2 == 0 else loaded[::-1]


def measure_images(loaded, root, s, log):
    """{row name: {label: [Timing per repeat]}} for the image pipelines and references."""
    res = {}
    files = measure.corpus_files(root)
    n_ceiling = s.image_iterations * pipelines.BATCH_SIZE
    encoded = measure.read_encoded(files[:n_ceiling])
    have_torch = torchvision_problem() is None
    for rep in range(s.repeats):
        for case in pipelines.IMAGE_CASES:
            for b in backend_order(loaded, rep):
                if all(backends.has_operator(b, op) for op in case.needs):
                    t = pipelines.timed(b, case.graph, s.image_iterations, s.warmup, root=root)
                    res.setdefault(case.key, {}).setdefault(b.label, []).append(t)
                    log(f"  {case.key:7s} {b.label:5s} {t.rate:7.1f} img/s  "
                        f"{t.cpu_ms:.2f} CPU ms/img")
        case = pipelines.P2_NO_FUSION
        if loaded[0].name == backends.OURS and all(backends.has_operator(loaded[0], op)
                                                   for op in case.needs):
            t = pipelines.timed(loaded[0], case.graph, s.image_iterations, s.warmup, root=root,
                             fuse_regions=False)
            res.setdefault(case.key, {}).setdefault("dali", []).append(t)
            log(f"  {case.key} dali {t.rate:7.1f} img/s  {t.cpu_ms:.2f} CPU ms/img")
        with measure.cv2_ceiling_executor(pipelines.NUM_THREADS) as pool:
            measure.cv2_decode(encoded[:pipelines.BATCH_SIZE], pool)
            t = measure.timed(lambda: measure.cv2_decode(encoded, pool), 1, len(encoded))
        res.setdefault("P1", {}).setdefault("cv2", []).append(t)
        log(f"  P1      cv2   {t.rate:7.1f} img/s  {t.cpu_ms:.2f} CPU ms/img")
        if have_torch:
            for key in ("P2", "P3"):
                t = torchvision_timing(root, key, s)
                res.setdefault(key, {}).setdefault("torchvision", []).append(t)
                log(f"  {key:7s} torchvision {t.rate:7.1f} img/s")
    return res


@functools.cache
def torchvision_problem():
    """None where torchvision imports, else why its rows are skipped (not installed, or an
    install that does not load, such as a CUDA build of torchvision beside a CPU-only torch)."""
    if importlib.util.find_spec("torchvision") is None:
        return "torch not installed"
    try:
        import torchvision  # noqa: F401
    except Exception as e:  # noqa: BLE001  (any failure to load is a reason to skip)
        return f"torchvision does not load ({type(e).__name__}: {str(e).splitlines()[0]})"
    return None


def torchvision_timing(root, key, s):
    from bench import torch_loader  # torch is optional: imported only where installed

    batches = torch_loader.batches(root, key)
    for _ in range(s.warmup):
        next(batches)
    t = measure.timed(lambda: next(batches), s.image_iterations, pipelines.BATCH_SIZE)
    batches.close()
    measure.settle(0.5)
    # the work happens in worker processes: this process's CPU time means nothing here
    return dataclasses.replace(t, cpu=float("nan"))


def measure_executor(loaded, s, log):
    """{(mode, batch size): {label: [(µs/iter for each chain length) per repeat]}}."""
    res = {}
    for rep in range(s.repeats):
        for bs in (64, 1):
            batch = pipelines.tiny_batch(bs)
            for b in backend_order(loaded, rep):
                modes = [("graph", s.chain_iterations)]
                if b.name == backends.OURS:
                    modes.append(("debug", s.debug_iterations))
                for mode, its in modes:
                    # fusion off: dali would pair the chained `x + 1`s (one pass for two)
                    per_iter = [pipelines.timed(b, pipelines.chain, its, s.warmup, n_ops=n,
                                             batch=batch, batch_size=bs, fuse_regions=False,
                                             debug=mode == "debug").wall / its * 1e6
                                for n in CHAIN_LENGTHS]
                    res.setdefault((mode, bs), {}).setdefault(b.label, []).append(per_iter)
                    log(f"  {mode:5s} bs={bs:2d} {b.label:5s} "
                        + "  ".join(f"{n} ops {u:8.0f} µs/iter"
                                    for n, u in zip(CHAIN_LENGTHS, per_iter, strict=True)))
    return res


def per_op(per_iter):
    """µs per operator: the slope between the chain lengths."""
    (n0, n1), (u0, u1) = CHAIN_LENGTHS, per_iter
    return (u1 - u0) / (n1 - n0)


def measure_conditionals(loaded, root, s, log):
    """{graph name: {label: [Timing per repeat]}}."""
    files = measure.corpus_files(root)[:pipelines.BATCH_SIZE]
    images = [cv2.cvtColor(cv2.imread(f), cv2.COLOR_BGR2RGB) for f in files]
    predicate = pipelines.half_predicate(len(images))
    res = {}
    for rep in range(s.repeats):
        for graph in (pipelines.if_else, pipelines.both_branches):
            for b in backend_order(loaded, rep):
                t = pipelines.timed(b, graph, s.cond_iterations, s.warmup, images=images,
                                 predicate=predicate, conditionals=graph is pipelines.if_else)
                res.setdefault(graph.__name__, {}).setdefault(b.label, []).append(t)
                log(f"  {graph.__name__:13s} {b.label:5s} {1e3 * t.wall / t.items * 64:7.1f} "
                    "ms/iter")
    return res


def measure_memory(names, root, s, log):
    """{label: bench.rss result} for the backends `names`, each in its own process."""
    res = {}
    for name in names:
        cmd = [sys.executable, "-m", "bench.rss", "--backend", name, "--corpus", str(root),
               "--iterations", *map(str, s.memory_iterations)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                             cwd=RESULTS.parent.parent)
        r = json.loads(out.stdout)
        res[backends.load(name).label] = r
        log(f"  memory {name}: " + ", ".join(
            f"{n} it: {v / 2**20:.1f} MiB ({t} s)"
            for n, v, t in zip(r["iterations"], r["rss_bytes"], r["seconds"], strict=True)))
    return res


# -- tables ------------------------------------------------------------------------------------
def fmt(x, spec=".0f"):
    return "—" if x is None or (isinstance(x, float) and np.isnan(x)) else format(x, spec)


def verdict(value, target, higher_is_better=True):
    if value is None or np.isnan(value):
        return "—"
    return "yes" if (value >= target if higher_is_better else value <= target) else "**no**"


def images_table(res):
    rows = ["| pipeline | dali img/s | DALI img/s | ratio (wall) | target | met? | "
            "dali CPU ms/img | DALI CPU ms/img | ratio (CPU) |",
            "|---|---:|---:|---:|---:|:---:|---:|---:|---:|"]
    for case in (*pipelines.IMAGE_CASES, pipelines.P2_NO_FUSION):
        r = res.get(case.key, {})
        ours, peer = r.get("dali"), r.get("DALI")
        if case is pipelines.P2_NO_FUSION:
            if not ours:
                continue
            peer = res.get("P2", {}).get("DALI")
        target = "—" if case.target is None else f"≥ {case.target}"
        if not ours:
            rows.append(f"| {case.key}: {case.title} | *not yet: dali lacks an operator* | "
                        f"{fmt(median([t.rate for t in peer or []]))} | — | {target} | — |"
                        f" — | {fmt(median([t.cpu_ms for t in peer or []]), '.2f')} | — |")
            continue
        ratio = paired_ratio(ours, peer, "rate") if peer else None
        cpu_ratio = paired_ratio(peer, ours, "cpu_ms") if peer else None
        rows.append(
            f"| {case.key}: {case.title} | {fmt(median([t.rate for t in ours]))} | "
            f"{fmt(median([t.rate for t in peer or []]))} | {fmt(ratio, '.2f')} | "
            f"{target} | {verdict(ratio, case.target) if case.target else '—'} | "
            f"{fmt(median([t.cpu_ms for t in ours]), '.2f')} | "
            f"{fmt(median([t.cpu_ms for t in peer or []]), '.2f')} | {fmt(cpu_ratio, '.2f')} |")
    return "\n".join(rows)


def references_table(res):
    rows = ["| reference | img/s | dali img/s | dali / reference | target | met? | "
            "CPU ms/img | dali CPU ms/img |",
            "|---|---:|---:|---:|---:|:---:|---:|---:|"]
    p1 = res.get("P1", {})
    if p1.get("cv2"):
        ratio = paired_ratio(p1["dali"], p1["cv2"], "rate") if p1.get("dali") else None
        rows.append(f"| P1 bound: cv2.imdecode of in-memory JPEGs, {pipelines.NUM_THREADS} "
                    f"threads | {fmt(median([t.rate for t in p1['cv2']]))} | "
                    f"{fmt(median([t.rate for t in p1.get('dali', [])]))} | "
                    f"{fmt(ratio, '.2f')} | ≥ 0.95 | {verdict(ratio, 0.95)} | "
                    f"{fmt(median([t.cpu_ms for t in p1['cv2']]), '.2f')} | "
                    f"{fmt(median([t.cpu_ms for t in p1.get('dali', [])]), '.2f')} |")
    for key in ("P2", "P3"):
        r = res.get(key, {})
        if r.get("torchvision"):
            ratio = paired_ratio(r["dali"], r["torchvision"], "rate") if r.get("dali") else None
            rows.append(f"| {key}: torchvision DataLoader, {pipelines.NUM_THREADS} workers | "
                        f"{fmt(median([t.rate for t in r['torchvision']]))} | "
                        f"{fmt(median([t.rate for t in r.get('dali', [])]))} | "
                        f"{fmt(ratio, '.2f')} | — | — | — | "
                        f"{fmt(median([t.cpu_ms for t in r.get('dali', [])]), '.2f')} |")
    if not any(res.get(key, {}).get("torchvision") for key in ("P2", "P3")):
        rows.append(f"| torchvision DataLoader | *{torchvision_problem()}: skipped* | — | — | — "
                    "| — | — | — |")
    return "\n".join(rows)


def executor_table(res):
    rows = ["| mode | batch | dali µs/op | DALI µs/op | ratio | target | met? | "
            "dali µs/iter (10 / 40 ops) | DALI µs/iter (10 / 40 ops) |",
            "|---|---:|---:|---:|---:|---:|:---:|---:|---:|"]
    for (mode, bs), r in sorted(res.items(), key=lambda kv: (kv[0][0] != "graph", -kv[0][1])):
        ours, peer = r.get("dali", []), r.get("DALI", [])
        ratio = median([per_op(a) / per_op(b) for a, b in zip(ours, peer, strict=False)])
        ratio = ratio if peer else None

        def iters(runs):
            return " / ".join(fmt(median([u[i] for u in runs])) for i in range(2)) if runs else "—"

        peer_op = fmt(median([per_op(u) for u in peer]), ".1f") if peer else (
            "n/a: needs a CUDA driver" if mode == "debug" else "—")
        target = "≤ 0.5" if mode == "graph" else "—"
        rows.append(f"| {mode} | {bs} | {fmt(median([per_op(u) for u in ours]), '.1f')} | "
                    f"{peer_op} | {fmt(ratio, '.2f')} | {target} | "
                    f"{verdict(ratio, 0.5, higher_is_better=False) if mode == 'graph' else '—'}"
                    f" | {iters(ours)} | {iters(peer)} |")
    return "\n".join(rows)


def conditionals_table(res):
    rows = ["| backend | if/else over half the batch, ms/iter | both branches on the whole "
            "batch, ms/iter | if/else / both | target | met? |",
            "|---|---:|---:|---:|---:|:---:|"]
    for label in ("dali", "DALI"):
        a, b = res.get("if_else", {}).get(label), res.get("both_branches", {}).get(label)
        if not a or not b:
            continue
        ratio = paired_ratio(a, b, "wall")
        target = "≤ 1.0" if label == "dali" else "—"
        met = verdict(ratio, 1.0, higher_is_better=False) if label == "dali" else "—"
        rows.append(f"| {label} | {fmt(median([t.wall / t.items * 64e3 for t in a]), '.1f')} | "
                    f"{fmt(median([t.wall / t.items * 64e3 for t in b]), '.1f')} | "
                    f"{fmt(ratio, '.2f')} | {target} | {met} |")
    return "\n".join(rows)


def memory_table(res, s):
    its = s.memory_iterations
    rows = ["| backend | " + " | ".join(f"RSS after {n} it (MiB)" for n in its)
            + f" | growth {its[0]} → {its[-1]} | target | met? | time for {its[-1]} it (s) |",
            "|---|" + "---:|" * len(its) + "---:|---:|:---:|---:|"]
    for label, r in res.items():
        rss = r["rss_bytes"]
        growth = 100 * (rss[-1] - rss[0]) / rss[0]
        rows.append(f"| {label} | " + " | ".join(f"{v / 2**20:.1f}" for v in rss)
                    + f" | {growth:+.2f}% | < 1% | "
                    f"{verdict(growth, 1.0, higher_is_better=False)} | {r['seconds'][-1]} |")
    return "\n".join(rows)


# -- the report --------------------------------------------------------------------------------
def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    versions = [f"dali {backends.load(backends.OURS).version}"]
    if backends.available(backends.PEER):
        versions.append(f"nvidia-dali {backends.load(backends.PEER).version} (CPU only)")
    versions += [f"OpenCV {cv2.__version__}", f"NumPy {np.__version__}",
                 f"Python {platform.python_version()}"]
    if importlib.util.find_spec("torchvision") is not None:
        versions.append(f"torch {importlib.metadata.version('torch')}, "
                        f"torchvision {importlib.metadata.version('torchvision')}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"- CPU: {model}; `nproc` = {len(os.sched_getaffinity(0))}; load average at start "
            f"{load}\n- " + "; ".join(versions))


def git_commit():
    """"<short hash>" of the measured tree, with " (dirty: uncommitted changes)" when it has
    any; "unknown" outside a git checkout."""
    def git(*args):
        return subprocess.run(["git", *args], capture_output=True, text=True, check=True,
                              cwd=RESULTS.parent.parent).stdout.strip()
    try:
        commit, dirty = git("rev-parse", "--short", "HEAD"), git("status", "--porcelain")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + (" (dirty: uncommitted changes)" if dirty else "")


def shown_path(path):
    """`path` as the report shows it: under the home folder as ~/..., so that the report names
    no folder of one machine."""
    path = pathlib.Path(path)
    try:
        return "~/" + str(path.relative_to(pathlib.Path.home()))
    except ValueError:
        return str(path)


def render(command, sections, s, root, started, elapsed, commit="unknown"):
    parts = [f"Generated by `{command}` on {started:%Y-%m-%d %H:%M} UTC in {elapsed:.0f} s "
             f"({s.repeats} interleaved repeats; corpus {shown_path(root)}) at commit {commit}.",
             "",
             machine(), ""]
    if "images" in sections:
        parts += ["### Image pipelines (batch 64, num_threads=2)", "",
                  f"{s.image_iterations} batches per measurement after {s.warmup} warm-up "
                  "batches; ratio = dali / DALI throughput (CPU column: DALI's CPU time per "
                  "image / dali's).", "", images_table(sections["images"]), "",
                  "References:", "", references_table(sections["images"]), ""]
    if "executor" in sections:
        parts += ["### Executor overhead (external_source of tiny uint8 samples → chained "
                  "`x + 1`)", "",
                  "µs/op = (time per iteration with 40 ops − with 10 ops) / 30; ratio = dali / "
                  "DALI (lower is better).", "", executor_table(sections["executor"]), ""]
    if "conditionals" in sections:
        parts += ["### Conditionals (64 decoded images; A = resize 224×224, B = rotate 15° "
                  "into 224×224)", "", conditionals_table(sections["conditionals"]), ""]
    if "memory" in sections:
        parts += ["### Memory (P2, each backend in its own process)", "",
                  memory_table(sections["memory"], s), ""]
    if "features" in sections:
        f = sections["features"]
        parts += ["### Pipeline features", "",
                  "Parallel external_source (a per-sample Python source of ~1 ms CPU a sample, "
                  f"batch {features.SOURCE_BATCH}, forked workers):", "",
                  features.parallel_source_table(f["parallel_source"]), "",
                  f"Profiler overhead ({s.image_iterations} P2 batches and {s.chain_iterations} "
                  "iterations of each tiny-operator chain per measurement):",
                  "", features.profiler_table(f["profiler"]), "",
                  "Checkpoints:", "", features.checkpoint_table(f["checkpoints"]), "",
                  "PyTorch iterator:", "", features.torch_iterator_table(f["torch"]), ""]
    if "ssd" in sections:
        parts += ["### SSD training pipeline (batch 64, num_threads=2; bench/ssd.py)", "",
                  f"{ssd.NUM_IMAGES} generated COCO-style images (300-640 px, 1-6 boxes); "
                  f"{s.image_iterations} batches per measurement after {s.warmup} warm-up "
                  "batches; ratio = dali / DALI throughput.", "", ssd.table(sections["ssd"]), ""]
    if "efficientnet" in sections:
        parts += ["### EfficientNet training pipeline (batch 64, num_threads=2; "
                  "bench/efficientnet.py)", "",
                  "decoders.image_random_crop -> resize 224 -> automatic augmentation "
                  "(dali.auto_aug, conditionals) -> crop_mirror_normalize on the benchmark corpus; "
                  f"{s.image_iterations} batches per measurement.", "",
                  efficientnet.table(sections["efficientnet"]), ""]
    if "speech" in sections:
        parts += ["### Speech pipeline (batch 64, num_threads=2; bench/speech.py)", "",
                  f"{speech.NUM_FILES} generated speech-like WAV/FLAC files at {speech.RATE} Hz "
                  "read through readers.nemo_asr to padded, normalized log-mel features.", "",
                  speech.table(*sections["speech"]), ""]
    if "video" in sections:
        parts += [f"### Video classification pipeline (batch {video.BATCH_SIZE} sequences of "
                  f"{video.SEQUENCE_LENGTH} frames, num_threads=2; bench/video.py)", "",
                  f"{video.NUM_CLIPS} generated clips read by experimental.readers.video.", "",
                  video.table(sections["video"]), ""]
    if "large" in sections:
        parts += [f"### Large photos (bench/large_images.py; batch {large_images.BATCH_SIZE}, "
                  f"num_threads={pipelines.NUM_THREADS})", "",
                  f"{corpus.LARGE.n} camera-sized JPEGs (make_corpus.py --scale "
                  f"{corpus.LARGE.scale}, 6.8 MP on average); {s.large_iterations} batches per "
                  f"measurement, {s.large_repeats} repeats; \"scaled\" is dali with "
                  "`decode_scaling=True` (docs/large_images.md), its PSNR against dali's exact "
                  "outputs over the whole corpus.", "", large_images.table(sections["large"]),
                  ""]
    if "gpu" in sections:
        parts += [f"### GPU image pipelines (bench/gpu.py; batch {pipelines.BATCH_SIZE}, "
                  f"num_threads={pipelines.NUM_THREADS}, device_id={gpu.DEVICE_ID})", "",
                  "The image pipelines with `device=\"mixed\"` decoding and the augmentations "
                  f"on the GPU; {s.image_iterations} batches per measurement after {s.warmup} "
                  "warm-up batches; ratio = dali / DALI throughput; GPU / CPU path = dali's "
                  "GPU pipeline against the same graph on dali's CPU path, in the same run.", "",
                  gpu.table(sections["gpu"]), ""]
    if "operators" in sections:
        parts += [operator_report.section(sections["operators"], s.repeats, s.op_window)]
    return "\n".join(parts)


def write_results(text):
    """Replace the generated block of RESULTS.md (between the markers) with `text`."""
    block = f"{BEGIN}\n{text}\n{END}"
    old = RESULTS.read_text() if RESULTS.exists() else ""
    if BEGIN in old and END in old:
        new = old[:old.index(BEGIN)] + block + old[old.index(END) + len(END):]
    else:
        new = old.rstrip() + "\n\n" + block + "\n"
    RESULTS.write_text(new)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--quick", action="store_true", help="one short repeat; no RESULTS.md update")
    ap.add_argument("--peer-memory", action="store_true",
                    help="also measure real DALI's RSS (adds minutes)")
    ap.add_argument("--no-write", action="store_true", help="do not update bench/RESULTS.md")
    ap.add_argument("--ops", default=None,
                    help="operators section: only these rows (comma-separated names)")
    a = ap.parse_args(argv)
    s = QUICK if a.quick else Settings()
    if a.repeats:
        s = dataclasses.replace(s, repeats=a.repeats)
    command = " ".join(["python -m bench.report", *(argv if argv is not None else sys.argv[1:])])
    names = [n for n in backends.NAMES if backends.available(n)]
    loaded = [backends.load(n) for n in names]
    own_data = {"operators", "ssd", "speech", "video", "large"} | (
        {"gpu"} if gpu.unavailable() else set())
    root = corpus.locate() if set(a.sections) - own_data else "not used"
    commit = git_commit()
    started, t0 = datetime.datetime.now(datetime.timezone.utc), time.perf_counter()

    def log(msg):
        print(f"[{time.perf_counter() - t0:6.1f} s] {msg}", file=sys.stderr, flush=True)

    results = {}
    for section in SECTIONS:
        if section not in a.sections:
            continue
        log(f"{section}:")
        if section == "images":
            results[section] = measure_images(loaded, str(root), s, log)
        elif section == "executor":
            results[section] = measure_executor(loaded, s, log)
        elif section == "conditionals":
            results[section] = measure_conditionals(loaded, str(root), s, log)
        elif section == "features":
            results[section] = {
                "parallel_source": features.measure_parallel_source(loaded, s.repeats, log),
                "profiler": features.measure_profiler_overhead(
                    str(root), s.repeats, s.image_iterations, s.chain_iterations, log),
                "checkpoints": features.measure_checkpoints(log),
                "torch": features.measure_torch_iterator(str(root), s.repeats,
                                                         s.image_iterations, log)}
        elif section == "ssd":
            with tempfile.TemporaryDirectory(prefix="dali-bench-ssd-") as tmp:
                results[section] = ssd.measure_ssd(loaded, ssd.data_set(tmp), s.repeats,
                                                   s.image_iterations, s.warmup, log)
        elif section in NEEDS and importlib.util.find_spec(NEEDS[section]) is None:
            log(f"  skipped: {NEEDS[section]} is not installed")
        elif section == "efficientnet":
            results[section] = efficientnet.measure_efficientnet(
                loaded, root, ["trivialaugment", "autoaugment"], min(s.repeats, 3),
                s.image_iterations, s.warmup, log)
        elif section == "speech":
            with tempfile.TemporaryDirectory(prefix="dali-bench-speech-") as tmp:
                results[section] = speech.measure_speech(loaded, speech.data_set(tmp),
                                                         s.repeats, s.speech_iterations,
                                                         s.warmup, log)
        elif section == "video":
            with tempfile.TemporaryDirectory(prefix="dali-bench-video-") as tmp:
                results[section] = video.measure_video(loaded, video.write_clips(tmp),
                                                       s.repeats, s.image_iterations,
                                                       s.warmup, log)
        elif section == "large":
            results[section] = large_images.measure_large(
                loaded, str(corpus.locate(kind=corpus.LARGE)), s.large_repeats,
                s.large_iterations, s.warmup, log)
        elif section == "gpu":
            results[section] = gpu.measure_gpu(loaded, str(root), s.repeats,
                                               s.image_iterations, s.warmup, log)
        elif section == "operators":
            results[section] = operator_report.measure_all(
                loaded, log, repeats=s.repeats, warmup=s.warmup, window=s.op_window,
                only=a.ops.split(",") if a.ops else None)
        else:
            mem_names = names if a.peer_memory else [backends.OURS]
            if not all(backends.has_operator(loaded[0], op)
                       for op in pipelines.CASES_BY_KEY["P2"].needs):
                log("  skipped: dali cannot run P2 yet")
                continue
            results[section] = measure_memory(mem_names, root, s, log)
    text = render(command, results, s, root, started, time.perf_counter() - t0, commit)
    print(text)
    if not (a.quick or a.no_write):
        write_results(text)
        log(f"updated {RESULTS}")


if __name__ == "__main__":
    main()
