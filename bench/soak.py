"""Soak figures: resident memory growth over long runs (docs/reliability.md, "Soak").

    python -m bench.soak                     # about two minutes on 2 cores
    python -m bench.soak --scale 0.1         # a quick look

Three loops, each measured after a warm-up (RSS after `warmup` rounds against RSS at the end,
`gc.collect()` before each reading):

- `p2`: the P2 training pipeline (bench.pipelines.training, batch 8) on the package's sample
  images, 2,000 iterations measured from the 1,000th: random crops keep reaching new largest
  batch sizes, and the buffer pool new size classes, for the first few hundred iterations
  (3 more blocks, about 8 MiB, between iterations 200 and 1,000; none after);
- `errors`: a pipeline whose `python_function` raises on every other batch, 1,000 errors
  (2,000 iterations), each caught as the PipelineError `run()` raises;
- `pipelines`: 1,000 pipelines (external_source -> resize -> crop_mirror_normalize) built,
  run once and deleted.

Prints one line per loop and a JSON object with the figures.
"""

from __future__ import annotations

import argparse
import gc
import json
import pathlib
import time

import numpy as np

import dali
from bench import backends, measure, pipelines
from dali import fn, pipeline_def, types
from dali._executor.errors import PipelineError

IMAGES = pathlib.Path(dali.__file__).parent / "data" / "images"
BATCH = 8


def _soak(name, step, rounds, warmup):
    """Calls step() `rounds` times; returns RSS at `warmup` and at the end, and the growth."""
    start = time.perf_counter()
    for _ in range(warmup):
        step()
    gc.collect()
    before = measure.rss_bytes()
    for _ in range(rounds - warmup):
        step()
    gc.collect()
    after = measure.rss_bytes()
    result = {"loop": name, "rounds": rounds, "warmup": warmup, "rss_warm_mib":
              round(before / 2**20, 1), "rss_end_mib": round(after / 2**20, 1),
              "growth_pct": round(100 * (after - before) / before, 2),
              "seconds": round(time.perf_counter() - start, 1)}
    print(f"{name}: {result['rss_warm_mib']} MiB after {warmup}, {result['rss_end_mib']} MiB "
          f"after {rounds} ({result['growth_pct']:+.2f}%), {result['seconds']} s", flush=True)
    return result


def p2_step():
    pipe = pipelines.build(backends.load(backends.OURS), pipelines.training,
                           batch_size=BATCH, root=str(IMAGES))
    return pipe.run


def _fail_odd(batch):
    values = [int(np.asarray(s).reshape(-1)[0]) for s in batch]
    if values[0] // BATCH % 2:
        raise ValueError(f"batch starting at sample {values[0]} fails")
    return [np.asarray(s) * 2 for s in batch]


def errors_step():
    @pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, exec_async=False,
                  exec_pipelined=False)
    def pipe():
        x = fn.external_source(source=lambda info: np.full((64, 64, 3), info.idx_in_epoch,
                                                           np.int32), batch=False)
        return fn.python_function(x, function=_fail_odd, batch_processing=True)

    p = pipe()
    p.build()
    caught = [0]

    def step():
        for _ in range(2):
            try:
                p.run()
            except PipelineError:
                caught[0] += 1
    return step, caught


def _small_image(info):
    return np.full((48, 64, 3), info.idx_in_epoch % 251, np.uint8)


def pipelines_step():
    @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=1)
    def pipe():
        img = fn.external_source(source=_small_image, batch=False, layout="HWC")
        img = fn.resize(img, resize_x=32, resize_y=24)
        return fn.crop_mirror_normalize(img, crop=(16, 16), dtype=types.FLOAT)

    p = pipe()
    p.build()
    p.run()
    del p


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every round count")
    a = ap.parse_args(argv)

    def n(count):
        return max(2, int(count * a.scale))

    results = [_soak("p2", p2_step(), n(2000), n(1000))]
    step, caught = errors_step()
    results.append(_soak("errors", step, n(1000), n(100)))
    results[-1]["errors_caught"] = caught[0]
    results.append(_soak("pipelines", pipelines_step, n(1000), n(100)))
    print(json.dumps(results))


if __name__ == "__main__":
    main()
