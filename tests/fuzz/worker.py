"""The subprocess side of a campaign: decode files, one JSON line per file on stdout.

Usage: ``python -m tests.fuzz.worker LIST MEMORY_BYTES`` where LIST holds one input per line,
"RGB <path>" or "ANY_DATA <path>" (the decoder's output type).  The worker prints "ready" once
it can take inputs.  The memory cap (RLIMIT_AS) is set once dali is imported and the pipelines
are built, so it limits what decoding allocates.  Per input the line says `status` ("ok",
"refused": a sample error, the expected outcome for bad data, or "unexpected": any other
exception, with `error`), the output's `shape` and `bytes`, and `rss_kb`, the peak resident
size that input would give a fresh worker: the worker's size when it became ready plus how far
the resident size rose above its size before the input (VmHWM, reset before each input through
/proc/self/clear_refs, less VmRSS).  Memory freed by earlier inputs and kept by the buffer pool
or malloc would hide a later input's growth from an absolute peak; `worker_peak_kb` is that
absolute peak.
"""

from __future__ import annotations

import json
import resource
import sys

import numpy as np

from dali import fn, pipeline_def, types
from dali._executor import errors


def build(output_type):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None, exec_async=False,
                  exec_pipelined=False, prefetch_queue_depth=1)
    def pipe():
        return fn.decoders.image(fn.external_source(name="data"), output_type=output_type)

    p = pipe()
    p.build()
    return p


def status_kb(key):
    """A size from /proc/self/status ("VmHWM", "VmRSS"), in KiB; the process's peak from
    getrusage where there is no /proc."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def reset_peak_rss():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:             # not Linux, or not allowed: the peak is then the process's
        pass


def decode(pipe, data, base_kb):
    """The result line (a dict) for one encoded input; `base_kb`: the ready worker's size."""
    reset_peak_rss()
    start_kb = status_kb("VmRSS")
    result = {}
    try:
        out, = pipe.run(data=[np.frombuffer(data, np.uint8)])
        sample = np.asarray(out[0])
        result.update(status="ok", shape=list(sample.shape), bytes=int(sample.nbytes))
    except errors.PipelineError as e:
        cause = e.__cause__
        if isinstance(cause, errors.SampleError):
            result.update(status="refused", error=str(cause)[:200])
        else:
            result.update(status="unexpected", error=f"{type(cause).__name__}: {cause}"[:400])
    except Exception as e:      # anything else escaping run() is a defect to report
        result.update(status="unexpected", error=f"{type(e).__name__}: {e}"[:400])
    peak = status_kb("VmHWM")
    result.update(rss_kb=base_kb + max(0, peak - start_kb), worker_peak_kb=peak)
    return result


def main(list_path, memory_bytes):
    pipes = {name: build(getattr(types, name)) for name in ("RGB", "ANY_DATA")}
    memory = int(memory_bytes)
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    base_kb = status_kb("VmRSS")
    print("ready", flush=True)
    with open(list_path) as f:
        lines = [line.split(" ", 1) for line in f.read().split("\n") if line]
    for output_type, path in lines:
        with open(path, "rb") as f:
            data = f.read()
        print(json.dumps(decode(pipes[output_type], data, base_kb)), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
