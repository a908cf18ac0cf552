"""Helpers shared by the tests: run an operator on given samples, with dali or real DALI."""

from __future__ import annotations

import importlib

import numpy as np
from layout_utils import run_layouts


def dali_fn(real=False):
    """The `fn` module of dali, or of real NVIDIA DALI (`real=True`)."""
    return importlib.import_module("nvidia.dali.fn" if real else "dali.fn")


def run_op(build, inputs, *, batch_size=None, real=False, iterations=1, layouts=None,
           seed=123, num_threads=1, **pipe_kwargs):
    """Run `build(fn, *nodes)` on batches of samples and return its outputs as numpy arrays.

    Parameters
    ----------
    build : callable(fn, *nodes) -> DataNode or tuple
        Builds the graph with the given `fn` module (ours or real DALI's).
    inputs : list of lists of arrays
        One list of samples per positional external_source; several iterations may be given
        as a list of such lists with `iterations > 1`.
    real : bool
        Run on real NVIDIA DALI (the oracle) instead of dali.

    Returns
    -------
    list (per output) of lists (per sample) of ndarrays; with iterations > 1, a list of those.
    """
    pkg = importlib.import_module("nvidia.dali" if real else "dali")
    fn = dali_fn(real)
    its = inputs if iterations > 1 else [inputs]
    n_inputs = len(its[0])
    layouts = layouts or [None] * n_inputs
    bs = batch_size or max([len(s) for s in its[0]] or [1])

    def source(k):
        def cb(info):
            return its[info.iteration % len(its)][k]
        return cb

    @pkg.pipeline_def(batch_size=bs, num_threads=num_threads, device_id=None, seed=seed,
                      **pipe_kwargs)
    def pipe():
        nodes = [fn.external_source(source=source(k), layout=layouts[k], batch_info=True)
                 for k in range(n_inputs)]
        out = build(fn, *nodes)
        return out if isinstance(out, tuple) else (out,)

    p = pipe()
    p.build()
    results = []
    for _ in range(len(its)):
        outs = p.run()
        results.append([[np.array(t) for t in tl] for tl in outs])
    return results if iterations > 1 else results[0]


def run_graph(build, *, batch_size=2, real=False, iterations=1, seed=123, num_threads=1,
              **pipe_kwargs):
    """Run `build(fn)` (a graph without external inputs); outputs as in `run_op`."""
    pkg = importlib.import_module("nvidia.dali" if real else "dali")
    fn = dali_fn(real)

    @pkg.pipeline_def(batch_size=batch_size, num_threads=num_threads, device_id=None, seed=seed,
                      **pipe_kwargs)
    def pipe():
        out = build(fn)
        return out if isinstance(out, tuple) else (out,)

    p = pipe()
    p.build()
    results = []
    for _ in range(iterations):
        outs = p.run()
        results.append([[np.array(t) for t in tl] for tl in outs])
    return results if iterations > 1 else results[0]


def run_one(build, *batches, layout=None, real=False, **pipe_kwargs):
    """(samples, layout) of the single output of `build(fn, *nodes)`, run once.

    Each of `batches` (a list of samples) feeds one external_source; the first gets `layout`.
    """
    layouts = [layout] + [None] * (len(batches) - 1)
    return run_layouts(build, list(batches), layouts, real, num_threads=1, **pipe_kwargs)
