"""The parent side of a campaign: run inputs in worker subprocesses, find crashes and hangs.

Inputs are split among `jobs` workers, many inputs per worker (starting Python and importing
dali costs about a second; decoding a tiny image, a millisecond).  A worker that dies (a
signal, or an abort) is a crash of the input it was on, one silent for `timeout` seconds a hang
(it is killed); either way a new worker takes the inputs left.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import queue
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parents[2]
REGRESSIONS = pathlib.Path(__file__).resolve().parent / "regressions"
GiB = 1 << 30
STARTUP_TIMEOUT = 120.0        # importing dali and building on a loaded machine
RSS_TARGET_KB = 1 << 20        # 1 GiB: the most any input under 10 MB may take
ABSURD_RATIO = 1024            # an output over 64 MiB and 1024 x its input is absurd


@dataclass
class Outcome:
    """What became of one input."""

    name: str                  # seed name and mutation labels, or the regression file
    format: str
    data: bytes = field(repr=False)
    output_type: str = "RGB"
    status: str = ""           # ok, refused, unexpected, crash, hang
    error: str = ""
    shape: list | None = None
    bytes: int = 0
    rss_kb: int = 0            # estimated peak of a fresh worker decoding only this input
    worker_peak_kb: int = 0    # the worker's own peak while it decoded this input

    @property
    def absurd(self):
        return self.bytes > max(64 << 20, ABSURD_RATIO * len(self.data))

    @property
    def failed(self):
        """Whether this input shows a defect (kept as a regression)."""
        return (self.status in ("unexpected", "crash", "hang") or self.absurd
                or (self.rss_kb > RSS_TARGET_KB and len(self.data) < 10 << 20))


def run(outcomes, jobs=None, memory=2 * GiB, timeout=10.0):
    """Decode every input of `outcomes` (filled in place) on `jobs` workers."""
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(outcomes)))
    with tempfile.TemporaryDirectory(prefix="dali-fuzz-") as tmp:
        items = []
        for k, o in enumerate(outcomes):
            path = os.path.join(tmp, f"{k}.bin")
            with open(path, "wb") as f:
                f.write(o.data)
            items.append((o, path))
        parts = [items[j::jobs] for j in range(jobs)]
        failures = []

        def part(j):
            try:
                _run_part(parts[j], tmp, j, memory, timeout)
            except Exception as e:         # re-raised below, in the caller's thread
                failures.append(e)

        threads = [threading.Thread(target=part, args=(j,)) for j in range(jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    if failures:
        raise failures[0]
    return outcomes


def _run_part(items, tmp, job, memory, timeout):
    pending = list(items)
    attempt = 0
    while pending:
        attempt += 1
        list_path = os.path.join(tmp, f"list-{job}-{attempt}.txt")
        with open(list_path, "w") as f:
            f.write("".join(f"{o.output_type} {path}\n" for o, path in pending))
        pending = _one_worker(pending, list_path, memory, timeout)


def _one_worker(pending, list_path, memory, timeout):
    """Run a worker over `pending`; returns the inputs still to run after it stopped."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [*worker_command(), list_path, str(memory)], cwd=ROOT,
            env=env, stdout=subprocess.PIPE, stderr=err, text=True)
        lines = queue.Queue()
        reader = threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True)
        reader.start()
        try:
            if _next_line(lines, STARTUP_TIMEOUT) != "ready":
                raise RuntimeError(f"fuzz worker did not start:\n{_tail(proc, err)}")
            for k, (o, _) in enumerate(pending):
                line = _next_line(lines, timeout)
                if line is None:                       # the worker died on this input
                    o.status, o.error = "crash", _tail(proc, err)
                    return pending[k + 1:]
                if line is _SILENT:
                    proc.kill()
                    o.status, o.error = "hang", f"no answer in {timeout} s"
                    return pending[k + 1:]
                _fill(o, line)
            return []
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            reader.join()
            proc.stdout.close()


_SILENT = object()


def worker_command():
    """The command line of a worker, less its arguments."""
    return [sys.executable, "-m", "tests.fuzz.worker"]


def _pump(stream, lines):
    for line in stream:
        lines.put(line.rstrip("\n"))
    lines.put(None)


def _next_line(lines, timeout):
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        return _SILENT


def _fill(o, line):
    result = json.loads(line)
    o.status = result["status"]
    o.error = result.get("error", "")
    o.shape = result.get("shape")
    o.bytes = result.get("bytes", 0)
    o.rss_kb = result["rss_kb"]
    o.worker_peak_kb = result["worker_peak_kb"]


def _tail(proc, err):
    code = proc.wait()
    err.seek(0)
    text = err.read().decode(errors="replace")[-600:]
    if code < 0:
        return f"killed by {signal.Signals(-code).name}\n{text}"
    return f"exit status {code}\n{text}"


def keep(outcomes, directory=REGRESSIONS):
    """Write every failed input to `directory` as <status>-<format>-<sha1>.bin (once);
    returns the paths written."""
    written = []
    directory.mkdir(parents=True, exist_ok=True)
    for o in outcomes:
        if not o.failed:
            continue
        kind = o.status if o.status in ("unexpected", "crash", "hang") else \
            ("absurd" if o.absurd else "rss")
        path = directory / f"{kind}-{o.format}-{hashlib.sha1(o.data).hexdigest()[:12]}.bin"
        if not path.exists():
            path.write_bytes(o.data)
            written.append(path)
    return written
