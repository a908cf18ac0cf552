"""Run an operator on several inputs with their own layouts and get the output's layout."""

from __future__ import annotations

import importlib

import numpy as np


def run_layouts(build, batches, layouts=None, real=False, *, batch_size=None, num_threads=2,
                **pipe_kwargs):
    """(samples, layout) of the single output of build(fn, *nodes), run once: one
    external_source per batch in `batches`, with the layouts `layouts` (default none); the
    batch size is that of the first batch unless given."""
    pkg = importlib.import_module("nvidia.dali" if real else "dali")
    layouts = layouts or [None] * len(batches)

    @pkg.pipeline_def(batch_size=batch_size or len(batches[0]), num_threads=num_threads,
                      device_id=None, **pipe_kwargs)
    def pipe():
        nodes = [pkg.fn.external_source(source=_returning(b), layout=lay)
                 for b, lay in zip(batches, layouts, strict=True)]
        return build(pkg.fn, *nodes)

    p = pipe()
    p.build()
    (tl,) = p.run()
    return [np.array(t) for t in tl], tl.layout()


def _returning(batch):
    return lambda: batch
