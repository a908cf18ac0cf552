"""`pipe.check_parity()`: run a pipeline in graph mode and in debug mode side by side and find
the first operator whose outputs differ.

Both twins are made afresh from the pipeline's definition with the same pipeline seed; the debug
twin gets the graph twin's per-operator seeds (matched by call site), so random operators draw
the same numbers.  Operators are matched by call site (file and line of the user's call) and by
their order among the calls made at that site.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dali._debug import context as debug_context
from dali._debug import pipeline as debug_pipeline
from dali._pipeline import pipeline as _pipeline


@dataclass
class ParityReport:
    """The outcome of `Pipeline.check_parity`.

    Attributes
    ----------
    ok : bool
        True when every compared operator output matched.
    iterations : int
        Iterations compared.
    operators : int
        Operators compared per iteration.
    operator, display_name, source : str
        The first differing operator: instance name, `dali.fn...` name, `file:line`.
    iteration, output, sample : int
        Where the first difference is.
    max_abs_diff : float
        Largest absolute difference in that sample (inf for a shape or type mismatch).
    detail : str
    """

    ok: bool
    iterations: int
    operators: int
    operator: str = ""
    display_name: str = ""
    source: str = ""
    iteration: int = -1
    output: int = -1
    sample: int = -1
    max_abs_diff: float = 0.0
    detail: str = ""

    def __str__(self):
        if self.ok:
            return (f"graph and debug mode agree: {self.operators} operators over "
                    f"{self.iterations} iterations")
        return (f"first difference: {self.display_name} (instance \"{self.operator}\", created "
                f"at {self.source}), iteration {self.iteration}, output {self.output}, sample "
                f"{self.sample}: {self.detail}")


def _site_keys(items):
    """`(site_key, item)` for each `(frames, op_name, item)`, in creation order."""
    counts = {}
    return [(debug_context.site_key(frames, op_name, counts), item)
            for frames, op_name, item in items]


def _compare(a, b, atol):
    """(sample, max abs diff, detail) of the first differing sample of two TensorLists."""
    if len(a) != len(b):
        return 0, np.inf, f"batch sizes differ: {len(a)} vs {len(b)}"
    if a.dtype != b.dtype:
        return 0, np.inf, f"types differ: {a.dtype} vs {b.dtype}"
    for i in range(len(a)):
        x, y = np.asarray(a[i]), np.asarray(b[i])
        if x.shape != y.shape:
            return i, np.inf, f"shapes differ: {x.shape} vs {y.shape}"
        if x.size:
            d = float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64))))
            if d > atol or (np.isnan(d) and not np.array_equal(x, y, equal_nan=True)):
                return i, d, f"max abs difference {d:g}"
    return None


@dataclass
class Definition:
    """How a `@pipeline_def` pipeline was made: enough to make its graph and debug twins."""

    body: object
    args: tuple
    fn_kwargs: dict
    ctor: dict
    conditionals: bool

    def check_parity(self, pipe, iterations=1, atol=0.0):
        return check_parity(pipe, self, iterations, atol)


def check_parity(pipe, definition, iterations=1, atol=0.0):
    """See `Pipeline.check_parity`."""
    pipe.build()
    ctor = {**definition.ctor, "seed": pipe._effective_seed}
    graph = _pipeline.Pipeline(**ctor)
    graph._define(definition, fuse_regions=False)     # every intermediate output is compared
    graph.build()
    nodes = sorted(graph._graph.nodes, key=lambda n: n.id)
    ops = {id(op.spec.node): op for op in graph._executor.ops}
    keyed = _site_keys([(n.origin, n.schema.name, n) for n in nodes])
    seeds = {k: ops[id(n)].spec.seed for k, n in keyed if ops[id(n)].spec.seed is not None}
    debug = debug_pipeline.DebugPipeline(definition, seed_overrides=seeds, capture=True, **ctor)
    topo = {id(n): i for i, n in enumerate(graph._graph.nodes)}
    order = sorted(keyed, key=lambda kn: topo[id(kn[1])])
    for it in range(iterations):
        graph._iter_setup()
        captured = graph._executor.run_captured()
        debug.run()
        by_key = dict(_site_keys(debug.captured_outputs()))
        for key, n in order:
            if key not in by_key:
                continue
            for k, out in enumerate(n.outputs):
                diff = _compare(captured[id(out)], by_key[key][k], atol)
                if diff is not None:
                    f = n.origin[-1] if n.origin else None
                    return ParityReport(False, it + 1, len(order), n.name,
                                        n.schema.display_name,
                                        f"{f.filename}:{f.lineno}" if f else "?", it, k,
                                        diff[0], diff[1], diff[2])
    return ParityReport(True, iterations, len(order))
