"""The benchmark pipelines, each written once against a `(fn, types)` pair.

`build(backend, graph, ...)` wraps a graph function in the backend's `pipeline_def`, so the
same code makes the dali pipeline and the identical real-DALI one.  `IMAGE_CASES` lists the
image pipelines of the suite (P1 decode only, P2 ResNet-50 training in two variants, P3
validation) with the operators each needs and the speed-up over real DALI it aims at.  The image
graphs take `device="gpu"` for their GPU variant (bench/gpu.py): the decoder runs as "mixed" and
the augmentations that follow it on the GPU (DALI places an operator with a GPU input there).
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from bench import backends, measure

BATCH_SIZE = 64
NUM_THREADS = 2
SEED = 1234

IMAGENET_MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
IMAGENET_STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


# -- image pipelines ---------------------------------------------------------------------------
def _normalize(fn, types, images, **kwargs):
    return fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                    mean=IMAGENET_MEAN, std=IMAGENET_STD, **kwargs)


def _decoder_device(device):
    """The decoders' device for a graph's `device`: "mixed" for "gpu", else "cpu"."""
    return "mixed" if device == "gpu" else "cpu"


def read_only(fn, types, root):
    """readers.file alone: the encoded files and labels."""
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return jpegs, labels


def decode_only(fn, types, root, device="cpu"):
    """P1: readers.file -> decoders.image."""
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, device=_decoder_device(device), output_type=types.RGB)
    return images, labels


def training(fn, types, root, device="cpu"):
    """P2: shuffled reader -> decoders.image_random_crop -> resize 224x224 -> normalize with a
    random mirror, FLOAT CHW (the ResNet-50 training pipeline of DALI's examples)."""
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    images = fn.decoders.image_random_crop(jpegs, device=_decoder_device(device),
                                           output_type=types.RGB)
    images = fn.resize(images, resize_x=224, resize_y=224)
    return _normalize(fn, types, images, mirror=fn.random.coin_flip()), labels


def training_rrc(fn, types, root, device="cpu"):
    """P2 variant: full decode -> random_resized_crop 224x224 -> normalize with random mirror."""
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device=_decoder_device(device), output_type=types.RGB)
    images = fn.random_resized_crop(images, size=(224, 224))
    return _normalize(fn, types, images, mirror=fn.random.coin_flip()), labels


def validation(fn, types, root, device="cpu"):
    """P3: decode -> resize(resize_shorter=256) -> normalize with a centre 224x224 crop."""
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, device=_decoder_device(device), output_type=types.RGB)
    images = fn.resize(images, resize_shorter=256)
    return _normalize(fn, types, images, crop=(224, 224)), labels


@dataclasses.dataclass(frozen=True)
class ImageCase:
    """One image pipeline of the suite.

    Attributes
    ----------
    key : str
        Short name used in test ids and tables ("P2 crop").
    title : str
        What it runs, for tables.
    graph : callable(fn, types, root)
    needs : tuple of str
        Operators (paths under `fn`) the pipeline uses.
    target : float or None
        The throughput ratio dali / real DALI it aims at.
    """

    key: str
    title: str
    graph: object
    needs: tuple
    target: float


_READ = ("readers.file", "decoders.image")
IMAGE_CASES = (
    ImageCase("P1", "decode only: readers.file -> decoders.image", decode_only, _READ, 1.05),
    ImageCase("P2", "training: image_random_crop -> resize 224 -> cmn(mirror)", training,
              ("readers.file", "decoders.image_random_crop", "resize", "random.coin_flip",
               "crop_mirror_normalize"), 1.5),
    ImageCase("P2 rrc", "training: decoders.image -> random_resized_crop 224 -> cmn(mirror)",
              training_rrc, _READ + ("random_resized_crop", "random.coin_flip",
                                     "crop_mirror_normalize"), 1.5),
    ImageCase("P3", "validation: decode -> resize(shorter=256) -> cmn(crop=224)", validation,
              _READ + ("resize", "crop_mirror_normalize"), 1.5),
)
CASES_BY_KEY = {c.key: c for c in IMAGE_CASES}
# P2 on dali with region fusion off (the decoder decodes whole images; `build(fuse_regions=False)`):
# beside P2 it separates the gain from decoding less from the kernels' speed.
P2_NO_FUSION = dataclasses.replace(CASES_BY_KEY["P2"], key="P2 no fusion", target=None,
                                   title="P2 with region fusion off (dali only; DALI column: "
                                         "its P2)")


# -- executor overhead -------------------------------------------------------------------------
def tiny_batch(batch_size, nbytes=16):
    """A fixed batch of `batch_size` tiny uint8 samples."""
    return [np.full((nbytes,), i % 251, dtype=np.uint8) for i in range(batch_size)]


def chain(fn, types, n_ops, batch):
    """external_source of a fixed batch, then `n_ops` chained `x + 1` operators."""
    x = fn.external_source(source=lambda: batch)
    for _ in range(n_ops):
        x = x + 1
    return x


# -- conditionals ------------------------------------------------------------------------------
def _branch_a(fn, images):
    return fn.resize(images, resize_x=224, resize_y=224)


def _branch_b(fn, images):
    return fn.rotate(images, angle=15, size=(224, 224))


def if_else(fn, types, images, predicate):
    """`if` on a per-sample predicate: branch A on the samples where it holds, B elsewhere.
    Needs `enable_conditionals=True`."""
    x = fn.external_source(source=lambda: images, layout="HWC")
    p = fn.external_source(source=lambda: predicate)
    if p:
        out = _branch_a(fn, x)
    else:
        out = _branch_b(fn, x)
    return out


def both_branches(fn, types, images, predicate):
    """Both branches of `if_else` on the whole batch (the predicate is read and unused)."""
    x = fn.external_source(source=lambda: images, layout="HWC")
    fn.external_source(source=lambda: predicate)
    return _branch_a(fn, x), _branch_b(fn, x)


def half_predicate(batch_size):
    """A per-sample boolean predicate true for every other sample."""
    return [np.array(i % 2 == 0) for i in range(batch_size)]


# -- building ----------------------------------------------------------------------------------
def build(backend, graph, *, batch_size=BATCH_SIZE, num_threads=NUM_THREADS, seed=SEED,
          debug=False, conditionals=False, fuse_regions=True, sync=False, decode_scaling=False,
          device_id=None, **params):
    """Build `graph(fn, types, **params)` as a pipeline of `backend`.

    Parameters
    ----------
    backend : bench.backends.Backend
    graph : callable(fn, types, **params) -> DataNode or tuple
    debug : bool
        Build it in debug mode (`pipeline.experimental.pipeline_def(debug=True)`).
    conditionals : bool
        `enable_conditionals=True`.
    fuse_regions : bool
        False turns dali's region fusion (dali.ops._regions) and its pairing of chained
        arithmetic operators off; ignored for real DALI.
    sync : bool
        `exec_async=False, exec_pipelined=False`: `run()` computes its batch and nothing runs
        ahead (no prefetching), so time spent in `run()` is the batch's cost.
    decode_scaling : bool
        dali's `Pipeline(decode_scaling=True)` (real DALI has no such option).
    device_id : int or None
        The CUDA device of a graph with GPU operators; None (the default): CPU only.
    """
    kwargs = dict(batch_size=batch_size, num_threads=num_threads, device_id=device_id, seed=seed,
                  enable_conditionals=conditionals)
    if decode_scaling:
        kwargs["decode_scaling"] = True
    if sync:
        kwargs.update(exec_async=False, exec_pipelined=False)
    if debug:
        decorator = backend.debug_pipeline_def(debug=True, **kwargs)
    else:
        decorator = backend.pipeline_def(**kwargs)

    @decorator
    def pipeline():
        return graph(backend.fn, backend.types, **params)

    pipe = pipeline()
    if not fuse_regions and hasattr(pipe, "_fuse_regions"):
        pipe._fuse_regions = False
    pipe.build()
    return pipe


def standalone(doc, argv=None, iterations=8, warmup=2, options=()):
    """(parsed arguments, loaded backends, log) for a pipeline module run as
    `python -m bench.<name>`: --repeats, --iterations, --warmup and `options`, (flag,
    argparse keywords) pairs; the backends are those installed."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    for flag, kwargs in options:
        ap.add_argument(flag, **kwargs)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=iterations)
    ap.add_argument("--warmup", type=int, default=warmup)
    loaded = [backends.load(n) for n in backends.NAMES if backends.available(n)]
    return ap.parse_args(argv), loaded, lambda msg: print(msg, flush=True)


def timed(backend, graph, iterations, warmup, **kwargs):
    """Timing of `iterations` batches of `build(backend, graph, **kwargs)` after `warmup`; the
    pipeline is then dropped and what it still had queued let finish."""
    pipe = build(backend, graph, **kwargs)
    t = measure.pipeline_timing(pipe, iterations, warmup)
    del pipe
    measure.settle(max(0.1, 2.5 * t.wall / iterations))
    return t
