"""The "features" section of `python -m bench.report`: what the pipeline-level features cost.

- Parallel external_source: a per-sample Python source doing about 1 ms of CPU work a sample
  (a NumPy-free loop), batch 16, in 1 and 2 worker processes, samples/s on dali and on real
  DALI in the same run (target: >= 1.8x from 1 to 2 workers on 2 cores, >= 1.0x DALI).
- Profiler overhead: the executor's event recording on, as `Pipeline.profile` runs it,
  against off: its cost per operator run (a chain of tiny operators), as a share of a P2
  batch (target < 2%), and P2's images/s both ways.
- Checkpoints: the size of a checkpoint and the time to take it and to build a pipeline from
  it, for a pipeline of random operators and sources and for a reader of a million entries.
- PyTorch iterator (where torch is installed): P2 images/s through DALIClassificationIterator
  (torch tensors) against `pipe.run()` (torchvision's DataLoader doing P2's work is in the
  images section).
"""

from __future__ import annotations

import time

import numpy as np

from bench import backends, measure, pipelines

SOURCE_BATCH = 16
SOURCE_ITERATIONS = 40          # 0.3 s a run with 2 workers: 12 (0.1 s) left the ramp-up in it
PROFILED_CHAIN = (10, 40)       # chain lengths whose µs/iter slope is a recording's cost an op


def busy_sample(info):
    """About 1 ms of pure-Python work, then a small array."""
    total = 0
    for i in range(25000):
        total += i * i % 7
    return np.array([info.idx_in_epoch, total], np.int64)


def _source_rate(backend, workers, iterations):
    @backend.pipeline_def(batch_size=SOURCE_BATCH, num_threads=1, device_id=None,
                          py_num_workers=workers, py_start_method="fork",
                          prefetch_queue_depth=2)
    def pipe():
        return backend.fn.external_source(source=busy_sample, parallel=True, batch=False,
                                          prefetch_queue_depth=2)

    p = pipe()
    p.build()
    t = measure.pipeline_timing(p, iterations, warmup=2)
    del p
    measure.settle(0.2)
    return t.rate


def measure_parallel_source(loaded, repeats, log):
    """{label: {workers: [samples/s per repeat]}}."""
    out = {b.label: {1: [], 2: []} for b in loaded}
    for r in range(repeats):
        for b in loaded:
            for workers in (1, 2):
                rate = _source_rate(b, workers, SOURCE_ITERATIONS)
                out[b.label][workers].append(rate)
                log(f"  parallel source {b.label}, {workers} worker(s), repeat {r}: "
                    f"{rate:.0f} samples/s")
    return out


def parallel_source_table(res):
    rows = ["| backend | 1 worker (samples/s) | 2 workers (samples/s) | speed-up | target |",
            "|---|---:|---:|---:|---:|"]
    for label, by in res.items():
        one, two = float(np.median(by[1])), float(np.median(by[2]))
        rows.append(f"| {label} | {one:.0f} | {two:.0f} | {two / one:.2f}x | >= 1.8x |")
    if len(res) == 2:
        ours, theirs = (float(np.median(v[2])) for v in res.values())
        rows.append(f"\n2 workers, dali / DALI: **{ours / theirs:.2f}x** (target >= 1.0x)")
    return "\n".join(rows)


def measure_profiler_overhead(root, repeats, iterations, chain_iterations, log):
    """The profiler's event recording off and on, the order alternating from repeat to
    repeat: P2's images/s, and the recording's own cost per operator run (the µs/op slope of
    a chain of 10 and 40 tiny `x + 1` operators, batch 64), which P2's images/s cannot
    resolve (its run-to-run noise is several %)."""
    ours = backends.load(backends.OURS)
    pipe = pipelines.build(ours, pipelines.training, root=root)
    batch = pipelines.tiny_batch(64)
    chains = [pipelines.build(ours, pipelines.chain, n_ops=n, batch=batch, batch_size=64)
              for n in PROFILED_CHAIN]
    out = {"off": [], "on": [], "us_per_op": {"off": [], "on": []},
           "operators": len(pipe._executor.plan.nodes)}
    for r in range(repeats):
        for mode in (("off", "on") if r % 2 == 0 else ("on", "off")):   # no order bias
            for p in (pipe, *chains):
                p._executor.plan.events = [] if mode == "on" else None
            out[mode].append(measure.pipeline_timing(pipe, iterations, warmup=2).rate)
            per_iter = [measure.pipeline_timing(c, chain_iterations, warmup=5).wall
                        / chain_iterations * 1e6 for c in chains]
            out["us_per_op"][mode].append((per_iter[1] - per_iter[0])
                                          / (PROFILED_CHAIN[1] - PROFILED_CHAIN[0]))
            log(f"  profiler {mode}, repeat {r}: {out[mode][-1]:.0f} images/s, "
                f"{out['us_per_op'][mode][-1]:.2f} µs per operator run")
    for p in (pipe, *chains):
        p._executor.plan.events = None
    return out


def profiler_table(res):
    off, on = float(np.median(res["off"])), float(np.median(res["on"]))
    cost = float(np.median(np.subtract(res["us_per_op"]["on"], res["us_per_op"]["off"])))
    batch_us = 1e6 * pipelines.BATCH_SIZE / off
    share = 100 * cost * res["operators"] / batch_us
    return ("| recording | P2 images/s (median) | µs per operator run (median) |\n"
            "|---|---:|---:|\n"
            f"| off | {off:.1f} | {np.median(res['us_per_op']['off']):.2f} |\n"
            f"| on (Pipeline.profile) | {on:.1f} | {np.median(res['us_per_op']['on']):.2f} |\n\n"
            f"Recording costs {cost:+.2f} µs per operator run (the median of the per-repeat "
            f"differences); P2 runs {res['operators']} operators a batch of "
            f"{batch_us / 1e3:.1f} ms, so its overhead is **{share:+.3f}%** (target < 2%). "
            f"P2's own images/s differ by {100 * (off - on) / off:+.2f}%, within their run-to-run "
            "noise (runs interleaved; a negative figure is noise).")


def _checkpointed(backend, checkpoint=None):
    def source(info):
        return [np.full((4,), info.iteration, np.int32) for _ in range(8)]

    @backend.pipeline_def(batch_size=8, num_threads=1, device_id=None, seed=3,
                          enable_checkpointing=True)
    def pipe():
        x = backend.fn.external_source(source=source, batch_info=True)
        noise = backend.fn.random.normal(x, dtype=backend.types.FLOAT)
        return noise, backend.fn.random.uniform(range=[0, 1]), backend.fn.random.coin_flip()

    return pipe(checkpoint=checkpoint) if checkpoint is not None else pipe()


def _million_file_reader(backend, listing, checkpoint=None):
    @backend.pipeline_def(batch_size=64, num_threads=1, device_id=None, seed=3,
                          enable_checkpointing=True)
    def pipe():
        return tuple(backend.fn.readers.file(file_list=listing, random_shuffle=True,
                                             name="Reader"))

    return pipe(checkpoint=checkpoint) if checkpoint is not None else pipe()


def _checkpoint_row(make, batches):
    """(bytes, checkpoint() ms, build-from-checkpoint ms, fresh build ms) after `batches`."""
    t0 = time.perf_counter()
    p = make(None)
    p.build()
    fresh = time.perf_counter() - t0
    for _ in range(batches):
        p.run()
    t0 = time.perf_counter()
    data = p.checkpoint()
    save = time.perf_counter() - t0
    t0 = time.perf_counter()
    make(data).build()
    restore = time.perf_counter() - t0
    return {"bytes": len(data), "save_ms": 1e3 * save, "restore_ms": 1e3 * restore,
            "fresh_ms": 1e3 * fresh, "batches": batches}


def measure_checkpoints(log):
    import tempfile

    ours = backends.load(backends.OURS)
    rows = {"external_source + random.normal + random.uniform + random.coin_flip":
            _checkpoint_row(lambda cp: _checkpointed(ours, cp), 5)}
    with tempfile.TemporaryDirectory(prefix="dali-bench-ckpt-") as d:
        for i in range(16):
            with open(f"{d}/{i}.jpg", "wb") as f:
                f.write(bytes([i]) * 64)
        listing = f"{d}/list.txt"
        with open(listing, "w") as f:
            f.write("".join(f"{i % 16}.jpg {i % 1000}\n" for i in range(1_000_000)))
        rows["readers.file over a 1,000,000-entry file list (random_shuffle)"] = \
            _checkpoint_row(lambda cp: _million_file_reader(ours, listing, cp), 100)
    for name, r in rows.items():
        log(f"  checkpoint of {name}: {r['bytes']} bytes, save {r['save_ms']:.2f} ms, "
            f"restore {r['restore_ms']:.0f} ms (fresh build {r['fresh_ms']:.0f} ms)")
    return rows


def checkpoint_table(rows):
    lines = ["| checkpoint of | after batches | bytes | checkpoint() (ms) | build from it (ms) "
             "| fresh build (ms) |", "|---|---:|---:|---:|---:|---:|"]
    for name, r in rows.items():
        lines.append(f"| {name} | {r['batches']} | {r['bytes']} | {r['save_ms']:.2f} | "
                     f"{r['restore_ms']:.0f} | {r['fresh_ms']:.0f} |")
    return "\n".join(lines) + (
        "\n\nRandom operators keep no state of their own (their draws are keyed by seed, "
        "epoch and sample) and a reader keeps its loader's call runs, so the size does not "
        "grow with the data; building from a checkpoint costs a fresh build plus replaying "
        "the consumed samples' draws (no reads).")


def measure_torch_iterator(root, repeats, iterations, log):
    """P2 images/s through DALIClassificationIterator and through pipe.run(), interleaved;
    None where torch is not installed."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        return None
    from dali.plugin.pytorch import DALIClassificationIterator

    ours = backends.load(backends.OURS)
    rates = {"pipe.run()": [], "DALIClassificationIterator": []}
    plain = pipelines.build(ours, pipelines.training, root=root)
    wrapped = DALIClassificationIterator(pipelines.build(ours, pipelines.training, root=root),
                                         reader_name="Reader", auto_reset=True)

    def next_batch():
        try:
            next(wrapped)
        except StopIteration:
            next(wrapped)

    for _ in range(repeats):
        rates["pipe.run()"].append(measure.pipeline_timing(plain, iterations, warmup=2).rate)
        for _ in range(2):
            next_batch()
        rates["DALIClassificationIterator"].append(
            measure.timed(next_batch, iterations, plain.max_batch_size).rate)
        log(f"  P2 pipe.run() {rates['pipe.run()'][-1]:.0f}, iterator "
            f"{rates['DALIClassificationIterator'][-1]:.0f} images/s")
    return rates


def torch_iterator_table(rates):
    if rates is None:
        return "(torch is not installed)"
    rows = ["| P2 through | images/s (median) |", "|---|---:|"]
    rows += [f"| {k} | {float(np.median(v)):.1f} |" for k, v in rates.items()]
    return "\n".join(rows)
