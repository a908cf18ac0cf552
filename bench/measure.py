"""Timing and memory helpers shared by the pytest suites and `bench.report`.

Throughput is measured on a built pipeline after warm-up iterations (the first `run()` of a
pipelined executor fills the prefetch queue), over whole batches, in wall-clock time and in
process CPU time.  Both dali and real DALI keep running ahead of the consumer (prefetch), so
after a measurement `settle` waits for that work to end before the next one starts.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import gc
import os
import statistics
import time

import cv2
import numpy as np


@dataclasses.dataclass(frozen=True)
class Timing:
    """`items` processed in `wall` seconds of wall-clock time and `cpu` seconds of process CPU
    time (all threads)."""

    items: int
    wall: float
    cpu: float

    @property
    def rate(self):
        """Items per second (wall clock)."""
        return self.items / self.wall

    @property
    def cpu_ms(self):
        """CPU milliseconds per item."""
        return 1e3 * self.cpu / self.items


def median(xs):
    """The median of `xs`, NaN when empty."""
    return statistics.median(xs) if xs else float("nan")


def paired_ratio(ours, peer):
    """Median over repeats of our rate / the peer's (Timings paired by repeat)."""
    return median([a.rate / b.rate for a, b in zip(ours, peer, strict=False)])


def pipeline_table(unit, rows, target):
    """The markdown table of end-to-end pipelines: `rows` are (title, {label: [Timing per
    repeat]}) with labels "dali" and "DALI"; throughput in `unit`s/s, CPU ms per `unit`."""
    lines = [f"| pipeline | dali {unit}/s | DALI {unit}/s | ratio | target | dali CPU ms/{unit} "
             f"| DALI CPU ms/{unit} |", "|---|---|---|---|---|---|---|"]
    for title, res in rows:
        ours, peer = res.get("dali", []), res.get("DALI", [])
        lines.append(f"| {title} | {median([t.rate for t in ours]):.1f} | "
                     f"{median([t.rate for t in peer]):.1f} | {paired_ratio(ours, peer):.2f}x | "
                     f"{target}x | {median([t.cpu_ms for t in ours]):.2f} | "
                     f"{median([t.cpu_ms for t in peer]):.2f} |")
    return "\n".join(lines)


def timed(func, repeat, items_per_call):
    """Call `func()` `repeat` times; the Timing of the whole."""
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        func()
    return Timing(repeat * items_per_call, time.perf_counter() - w0, time.process_time() - c0)


def pipeline_timing(pipe, iterations, warmup=3):
    """Run `warmup` then `iterations` batches of a built pipeline; Timing per sample."""
    for _ in range(warmup):
        pipe.run()
    return timed(pipe.run, iterations, pipe.max_batch_size)


def settle(seconds):
    """Collect garbage and wait `seconds` so that work a dropped pipeline still had queued
    (prefetched iterations) does not run during the next measurement."""
    gc.collect()
    time.sleep(seconds)


def rss_bytes():
    """Resident set size of this process (Linux: /proc/self/status)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("VmRSS not found in /proc/self/status")


# -- the raw decoding ceiling ------------------------------------------------------------------
def imread_flag():
    """cv2's flag for a 3-channel RGB decode (`IMREAD_COLOR_RGB` where OpenCV has it)."""
    return getattr(cv2, "IMREAD_COLOR_RGB", cv2.IMREAD_COLOR)


def read_encoded(files):
    """The bytes of `files` as uint8 arrays (what a reader hands to a decoder)."""
    out = []
    for path in files:
        with open(path, "rb") as f:
            out.append(np.frombuffer(f.read(), dtype=np.uint8))
    return out


def cv2_decode(encoded, executor):
    """Decode every buffer in `encoded` with cv2.imdecode on `executor`'s threads."""
    flag = imread_flag()
    for image in executor.map(lambda buf: cv2.imdecode(buf, flag), encoded):
        if image is None:
            raise ValueError("cv2.imdecode failed on a corpus file")


def cv2_ceiling_executor(num_threads):
    """A thread pool for `cv2_decode` (cv2.imdecode releases the GIL)."""
    return concurrent.futures.ThreadPoolExecutor(max_workers=num_threads,
                                                 thread_name_prefix="cv2-ceiling")


def corpus_files(root):
    """The JPEG files of a corpus directory (<root>/<class>/<name>.jpg), sorted."""
    files = []
    for cls in sorted(os.listdir(root)):
        d = os.path.join(root, cls)
        if os.path.isdir(d):
            files.extend(os.path.join(d, f) for f in sorted(os.listdir(d))
                         if f.lower().endswith((".jpg", ".jpeg")))
    return files
