"""What the auto_aug tests (and tests/goldens/make_auto_aug.py) share: small test images,
running one augmentation at given magnitude bins and signs, or a whole graph, with dali or with
real NVIDIA DALI, and the comparisons of suites and graphs with real DALI's."""

from __future__ import annotations

import importlib
import warnings

import numpy as np

AUGMENTATIONS = ["shear_x", "shear_y", "translate_x", "translate_y", "translate_x_no_shape",
                 "translate_y_no_shape", "rotate", "brightness", "contrast", "color",
                 "sharpness", "posterize", "solarize", "solarize_add", "invert", "equalize",
                 "auto_contrast", "identity"]
NUM_BINS = 11
BINS = (0, 3, 7, 10)
SIGNS = (0, 1, 1, 0)


def images(seed=0, shapes=((17, 23), (20, 20), (31, 16), (24, 28))):
    """Smooth gradients with noise (so that warps, filters and histograms all matter)."""
    rng = np.random.default_rng(seed)
    out = []
    for h, w in shapes:
        yy, xx = np.mgrid[:h, :w]
        base = np.stack([xx * 255 / w, yy * 255 / h, (xx + yy) * 127 / (h + w)], axis=-1)
        noisy = base * rng.uniform(0.3, 1.0) + rng.normal(0, 20, base.shape)
        out.append(np.clip(noisy, 0, 255).astype(np.uint8))
    return out


def package(real):
    return importlib.import_module("nvidia.dali" if real else "dali")


def run_graph(graph, inputs, *, real=False, batch_size=None, seed=1, num_threads=1,
              iterations=1, layouts=None):
    """Outputs (list of samples per output, per iteration when `iterations > 1`) of a
    conditional pipeline whose graph is `graph(pkg, *nodes)`, one external_source per batch
    in `inputs`."""
    pkg = package(real)
    layouts = layouts or ["HWC"] + [None] * (len(inputs) - 1)

    @pkg.pipeline_def(batch_size=batch_size or len(inputs[0]), num_threads=num_threads,
                      device_id=None, seed=seed, enable_conditionals=True)
    def pipe():
        nodes = [pkg.fn.external_source(source=_returning(inputs[k]), layout=layouts[k])
                 for k in range(len(inputs))]
        out = graph(pkg, *nodes)
        return out if isinstance(out, tuple) else (out,)

    p = pipe()
    p.build()
    runs = [[[np.array(t) for t in tl] for tl in p.run()] for _ in range(iterations)]
    return runs if iterations > 1 else runs[0]


def _returning(batch):
    return lambda: batch


def run_augmentation(name, imgs, bins=BINS, signs=SIGNS, *, real=False, augmentation=None,
                     num_bins=NUM_BINS, layout="HWC", **kwargs):
    """The samples of `augmentations.<name>` (or of `augmentation(auto_aug)`) applied to
    `imgs` (of `layout`), sample i at magnitude bin `bins[i]` with sign `signs[i]` (1:
    negated)."""
    bins = [np.array(b, np.int32) for b in bins]
    signs = [np.array(s, np.int32) for s in signs]

    def graph(pkg, x, b, s):
        aa = importlib.import_module(pkg.__name__ + ".auto_aug.augmentations")
        core = importlib.import_module(pkg.__name__ + ".auto_aug.core")
        aug = augmentation(aa) if augmentation is not None else getattr(aa, name)
        extra = dict(kwargs)
        if name in ("translate_x", "translate_y"):
            extra["shape"] = pkg.fn.cast(x.shape(), dtype=pkg.types.FLOAT)
        return aug(x, magnitude_bin=core.signed_bin(b, s), num_magnitude_bins=num_bins, **extra)

    return run_graph(graph, [imgs, bins, signs], real=real, layouts=[layout, None, None])[0]


def assert_same_as_dali(graph, inputs):
    """`run_graph(graph, inputs)` gives real DALI's samples, bit for bit (DALI's warnings
    silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = run_graph(graph, inputs, real=True)[0]
    for o, r in zip(run_graph(graph, inputs)[0], ref, strict=True):
        np.testing.assert_array_equal(o, r)


def assert_same_augmentations(ours, theirs):
    """Each of `ours` has the magnitude range, random sign and parameter device of the
    augmentation of real DALI at its place in `theirs`, and gives the same parameters over the
    magnitude range."""
    for a, b in zip(ours, theirs, strict=True):
        assert (a.mag_range, a.randomly_negate, a.param_device) == (
            b.mag_range, b.randomly_negate, b.param_device)
        if a.mag_range is not None:
            for m in np.linspace(*a.mag_range, 5):
                np.testing.assert_allclose(np.asarray(_parameter(a, m), np.float64),
                                           np.asarray(_parameter(b, m), np.float64), rtol=1e-6,
                                           atol=1e-6)


def _parameter(aug, magnitude):
    return magnitude if aug.mag_to_param is None else aug.mag_to_param(magnitude)


# -- marker augmentations: which augmentation ran, with which magnitude -------------------------
BASE = 1000.0


def markers(count, num_bins, randomly_negate=True):
    """`count` dali augmentations over float32 scalar samples: augmentation k maps `v` to
    `v * BASE + (k + 1) * 100 + 50 + magnitude`, magnitudes being the bins themselves
    (`mag_range=(0, num_bins - 1)`), negated at random when `randomly_negate`."""
    from dali import types
    from dali.auto_aug.core import augmentation

    def make(k):
        def op(data, magnitude):
            return data * types.Constant(np.float32(BASE)) + (
                magnitude + types.Constant(np.float32((k + 1) * 100 + 50)))

        op.__name__ = f"marker{k}"
        return augmentation(op, mag_range=(0, max(num_bins - 1, 1)),
                            randomly_negate=randomly_negate)

    return [make(k) for k in range(count)]


def decode(value):
    """The (augmentation index, signed magnitude) steps encoded by `markers` in `value`."""
    steps = []
    value = int(round(float(value)))
    while value:
        digit = value % int(BASE)
        steps.append((digit // 100 - 1, digit % 100 - 50))
        value //= int(BASE)
    return steps[::-1]


def run_markers(apply, batch_size=256, iterations=4, seed=1, num_threads=1):
    """The decoded steps of every sample of `iterations` batches of zeros through
    `apply(data)` (a dali graph fragment)."""
    zeros = [np.zeros((), np.float32)] * batch_size
    runs = run_graph(lambda pkg, x: apply(x), [zeros], batch_size=batch_size, seed=seed,
                     num_threads=num_threads, iterations=iterations, layouts=[None])
    if iterations == 1:
        runs = [runs]
    return [decode(v) for run in runs for v in run[0]]
