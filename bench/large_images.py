"""Large photos: the image pipelines on camera-sized JPEGs (issue #16), exact and with decode
scaling, against real DALI in the same run.

The corpus is 256 JPEGs of 6.8 MP on average (`bench.corpus.LARGE`: the shared generator with
`--scale 6`), read at batch 16 with 2 threads: readers.file alone, P1 (decode), P2 (decoders.
image_random_crop -> resize 224 -> cmn), P2 rrc (decoders.image -> random_resized_crop 224 ->
cmn) and P3 (decode -> resize_shorter 256 -> cmn crop 224), the graphs of `bench.pipelines`.
dali runs each exactly (DALI's pixels) and, where a resize follows the decoder, with
`decode_scaling=True` (JPEGs decoded at 1/2, 1/4 or 1/8 scale); the PSNR of the scaled outputs
against the exact ones over the whole corpus goes with them.

    python -m bench.large_images                # both backends, interleaved repeats
    python -m bench.report --sections large
"""

from __future__ import annotations

import dataclasses
import math
import statistics

import numpy as np

from bench import backends, corpus, measure, pipelines

BATCH_SIZE = 16


@dataclasses.dataclass(frozen=True)
class Case:
    key: str
    title: str
    graph: object
    target: float             # dali / DALI, exact path
    scaled_target: float      # dali with decode scaling / DALI; nan: not applicable


NAN = float("nan")
CASES = (
    Case("read", "readers.file alone", pipelines.read_only, 1.0, NAN),
    Case("P1", "decode: readers.file -> decoders.image", pipelines.decode_only, 1.05, NAN),
    Case("P2", "image_random_crop -> resize 224 -> cmn(mirror)", pipelines.training, 1.5, 2.2),
    Case("P2 rrc", "decoders.image -> random_resized_crop 224 -> cmn(mirror)",
         pipelines.training_rrc, 1.5, 2.2),
    Case("P3", "decode -> resize(shorter=256) -> cmn(crop=224)", pipelines.validation, 2.0,
         3.5),
)
SCALED = "dali scaled"


def measure_large(loaded, root, repeats, iterations, warmup, log):
    """{case key: {label: [Timing per repeat]}} (labels: the backends' and "dali scaled") and
    {case key: (min, median) PSNR in dB of the scaled outputs against the exact ones}."""
    res = {}
    ours = next((b for b in loaded if b.name == backends.OURS), None)
    for rep in range(repeats):
        for case in CASES:
            runs = [(b, b.label, {}) for b in (loaded if rep % 2 == 0 else loaded[::-1])]
            if ours is not None and not math.isnan(case.scaled_target):
                runs.append((ours, SCALED, {"decode_scaling": True}))
            for b, label, kwargs in runs:
                t = pipelines.timed(b, case.graph, iterations, warmup,
                                    batch_size=BATCH_SIZE, root=root, **kwargs)
                res.setdefault(case.key, {}).setdefault(label, []).append(t)
                log(f"  {case.key:7s} {label:11s} {t.rate:7.1f} img/s  "
                    f"{t.cpu_ms:.2f} CPU ms/img")
    quality = {}
    if ours is not None:
        n = len(measure.corpus_files(root))
        for case in CASES:
            if not math.isnan(case.scaled_target):
                quality[case.key] = psnr_over_corpus(ours, case.graph, root, n)
                log(f"  {case.key:7s} PSNR scaled/exact min {quality[case.key][0]:.1f} dB, "
                    f"median {quality[case.key][1]:.1f} dB")
    return res, quality


def psnr_over_corpus(backend, graph, root, n):
    """(min, median) PSNR of every image of the corpus through `graph` with decode scaling,
    against the exact path (same seeds: same windows and mirrors); float CHW outputs are taken
    back to pixel values first (the difference times std)."""
    std = np.asarray(pipelines.IMAGENET_STD)[:, None, None]
    pipes = [pipelines.build(backend, graph, batch_size=BATCH_SIZE, root=root,
                             decode_scaling=s) for s in (False, True)]
    values = []
    for _ in range(math.ceil(n / BATCH_SIZE)):
        exact, scaled = ([np.asarray(x, np.float64) for x in p.run()[0]] for p in pipes)
        for a, b in zip(exact, scaled, strict=True):
            mse = np.mean(((a - b) * std) ** 2) if a.dtype.kind == "f" and a.ndim == 3 and \
                a.shape[0] == 3 else np.mean((a - b) ** 2)
            values.append(math.inf if mse == 0 else 10 * math.log10(255.0 ** 2 / mse))
    del pipes
    measure.settle(0.5)
    return min(values), statistics.median(values)


def table(results):
    """The markdown table of `measure_large`'s results (medians; ratios are medians of the
    paired per-repeat ratios)."""
    res, quality = results
    med, ratio = measure.median, measure.paired_ratio

    rows = ["| pipeline | dali img/s | DALI img/s | ratio | target | dali scaled img/s | "
            "scaled ratio | scaled target | PSNR scaled/exact (min / median) |",
            "|---|---|---|---|---|---|---|---|---|"]
    for case in CASES:
        r = res.get(case.key, {})
        ours, peer, scaled = r.get("dali", []), r.get("DALI", []), r.get(SCALED, [])
        q = quality.get(case.key)
        scaled_cells = (f"{med([t.rate for t in scaled]):.1f} | {ratio(scaled, peer):.2f}x | "
                        f"{case.scaled_target}x | {q[0]:.1f} / {q[1]:.1f} dB"
                        if scaled and q else "– | – | – | –")
        rows.append(f"| {case.key}: {case.title} | {med([t.rate for t in ours]):.1f} | "
                    f"{med([t.rate for t in peer]):.1f} | {ratio(ours, peer):.2f}x | "
                    f"{case.target}x | {scaled_cells} |")
    return "\n".join(rows)


def main(argv=None):
    a, loaded, log = pipelines.standalone(__doc__, argv)
    results = measure_large(loaded, str(corpus.locate(kind=corpus.LARGE)), a.repeats,
                            a.iterations, a.warmup, log)
    print(table(results))
    return results


if __name__ == "__main__":
    main()
