"""What a per-operator benchmark case is, and the input batches cases are measured on.

bench/operators.py collects the cases (bench/cases/*.py, one module per family of operators).

A case measures "the operator alone": `external_source` (a callback returning the same prepared
batch every iteration) feeding the operator, minus the baseline pipeline in which the same
sources feed `.shape()` only (bench/operator_report.py does the timing).  The baseline
consumes its sources instead of returning them: real DALI takes longer to return an
external_source's batch as a pipeline output than an operator's (64 samples of 8x8x3: source
alone 0.86 ms a batch, source -> copy 0.69, source -> shape 0.30; 224x224x3: 2.4, 2.5 and
1.2 ms; 64 one-byte samples: 1.17 ms, against 0.33 for `fn.zeros` of as many), so with the
sources as the baseline its operator figures came out low by 0.4-1.2 ms, some of them
negative.  Every case has two input sets:

- "image": 64 image-sized samples: 224x224x3 uint8 RGB (HWC) made from the photos bundled in
  dali/data/images (resized, then shifted per sample so no two are equal);
- "small": 64 small samples: the same photos at 8x8x3.

The operator's natural input replaces the uint8 image where it has another one:

- "f32": the images as float32 (normalize, cast_like's reference, float arithmetic);
- "jpeg": the images JPEG-encoded by OpenCV at quality 90 (decoders, peek_image_shape), so a
  decoder produces exactly the "image" / "small" samples' sizes;
- "points": (2N, 2) float32 coordinates in [0, 1] (coord_flip; the corners of N boxes, N from
  20 to 50 for "image" and from 1 to 3 for "small");
- "boxes": (N, 4) float32 ltrb boxes, N as above (bounding-box operators);
- "labels": int32 class ids in [0, 1000): a (50,) vector per sample for "image", a scalar for
  "small" (label operators);
- "frames": the images with an outer frame dimension of 1, layout FHWC (per_frame, squeeze).

Operators whose input is special:

- readers (readers.file) have no input: they read a file_root of the "jpeg" samples written to
  a temporary directory (4 class folders, 64 files: one batch is one epoch);
- random generators take the batch as `shape_like` input (random.uniform(x) draws one number
  per element of x, as for noise or masks; coin_flip and normal likewise); random.choice draws
  from 256 values with `shape=` the image's shape; random.beta (mixup's weight) draws a
  scalar per sample for "small" and a (224,) vector for "image" (one draw per pixel would take
  seconds a batch); these two have no input;
- external_source is measured against a source of one-byte samples: its time is what handing
  over the batch costs beyond the per-iteration minimum;
- cases without an input ("idle" baseline) subtract a pipeline whose only operator is
  `fn.zeros` of 64 one-byte samples, i.e. the per-iteration cost of a one-operator pipeline;
- python_function runs the identity in Python, the cost of the escape hatch itself;
- deprecated aliases (image_decoder*, experimental.decoders.*, experimental.peek_image_shape)
  get the case of the operator they stand for.

Arithmetic is reached through DataNode operators: the "arithmetic.*" cases measure whole
expressions (`x * 0.5 + 1` on float, `x + y` on uint8).

`public_operators()` lists dali's registered public operators; `row_names()` is what the report
covers (those, plus every case here, so an operator dali lacks still shows real DALI's time).
tests/test_bench_operators.py fails when a public operator has no case.
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import importlib.util
import pathlib
import shutil
import tempfile

import cv2
import numpy as np

from bench import pipelines

SIZES = ("image", "small")
SIDE = {"image": 224, "small": 8}
BATCH_SIZE = pipelines.BATCH_SIZE
PHOTOS = pathlib.Path(__file__).resolve().parent.parent / "dali" / "data" / "images"
JPEG_QUALITY = 90
N_CLASSES = 1000


@dataclasses.dataclass(frozen=True)
class OpCase:
    """How to benchmark one operator.

    Attributes
    ----------
    name : str
        Row name: the operator's fn path ("resize", "decoders.image") or "arithmetic.<what>".
    op : str or None
        The fn path it needs (None for DataNode arithmetic).
    graph : callable(fn, types, *nodes, size) -> DataNode or tuple
        Builds the operator on the source nodes (one per entry of `inputs`); `size` is "image"
        or "small" for size-dependent arguments.
    inputs : tuple of str
        Input kinds, one external_source each (see the module docstring).
    baseline : str
        "source": subtract the pipeline of the same sources (each consumed by `.shape()`);
        "idle": subtract a pipeline of one `fn.zeros` of one-byte samples.
    modules : tuple of str
        Optional Python modules the case's data or operator needs (e.g. "lmdb"); the case is
        skipped where one is missing.
    """

    name: str
    op: str | None
    graph: object
    inputs: tuple = ("u8",)
    baseline: str = "source"
    modules: tuple = ()

    def missing_modules(self):
        """The optional Python modules the case needs (`modules`) that are not installed."""
        return [m for m in self.modules if importlib.util.find_spec(m) is None]

    @property
    def needs(self):
        return (self.op,) if self.op else ()


# -- input data --------------------------------------------------------------------------------
@functools.cache
def _photos(side):
    out = []
    for path in sorted(PHOTOS.glob("*/*.jpg")):
        bgr = cv2.imread(str(path))
        rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        out.append(cv2.resize(rgb, (side, side), interpolation=cv2.INTER_AREA))
    if not out:
        raise FileNotFoundError(f"no bundled photos in {PHOTOS}")
    return out


def _images(size, n):
    photos, side = _photos(SIDE[size]), SIDE[size]
    return [np.ascontiguousarray(np.roll(photos[i % len(photos)], (3 * i) % side, axis=1))
            for i in range(n)]


def _encode(img):
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR),
                           [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise RuntimeError("cv2.imencode failed")
    return buf.reshape(-1)


def _n_boxes(size, i):
    return 20 + i % 31 if size == "image" else 1 + i % 3


def _boxes(size, n):
    rng = np.random.default_rng(7)
    out = []
    for i in range(n):
        lt = rng.uniform(0.0, 0.5, (_n_boxes(size, i), 2))
        wh = rng.uniform(0.05, 0.5, lt.shape)
        out.append(np.concatenate([lt, lt + wh], axis=1).astype(np.float32))
    return out


_KINDS = {}


def input_kind(name):
    """Decorator: `f(size, batch_size) -> (samples, layout)` makes input kind `name` (for the
    inputs a family's cases need beyond the common ones below)."""
    def register(f):
        if name in _KINDS:
            raise RuntimeError(f"bench: two input kinds named {name!r}")
        _KINDS[name] = f
        return f
    return register


def batch(kind, size, batch_size=BATCH_SIZE):
    """`(samples, layout)` of input `kind` for input set `size` ("image" or "small")."""
    if kind in _KINDS:
        return _KINDS[kind](size, batch_size)
    if kind in ("u8", "u8b"):
        images = _images(size, batch_size)
        return (images if kind == "u8" else [255 - x for x in images]), "HWC"
    if kind == "f32":
        return [x.astype(np.float32) for x in _images(size, batch_size)], "HWC"
    if kind == "frames":
        return [x[np.newaxis] for x in _images(size, batch_size)], "FHWC"
    if kind == "jpeg":
        return [_encode(x) for x in _images(size, batch_size)], None
    if kind == "boxes":
        return _boxes(size, batch_size), None
    if kind == "points":
        return [b.reshape(-1, 2) for b in _boxes(size, batch_size)], None
    if kind == "labels":
        rng = np.random.default_rng(11)
        shape = (50,) if size == "image" else ()
        return [rng.integers(0, N_CLASSES, shape).astype(np.int32)
                for _ in range(batch_size)], None
    if kind == "tiny":
        return [np.full((1,), i % 251, dtype=np.uint8) for i in range(batch_size)], None
    raise ValueError(f"unknown input kind {kind!r}")


_SCRATCH = {}


def scratch_dir(prefix, fill):
    """What `fill(root)` returns, run once a process per `prefix` on a new temporary directory
    `root` (named with `prefix`, removed at exit): the data files of the reader cases."""
    if prefix not in _SCRATCH:
        root = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        _SCRATCH[prefix] = fill(root)
    return _SCRATCH[prefix]


def file_root(size):
    """A directory of the "jpeg" samples of `size` in 4 class folders (made once a process)."""
    def fill(root):
        for i, buf in enumerate(batch("jpeg", size)[0]):
            d = root / f"class{i % 4}"
            d.mkdir(exist_ok=True)
            (d / f"{i:03d}.jpg").write_bytes(buf.tobytes())
        return str(root)
    return scratch_dir(f"dali-bench-ops-{size}-", fill)


# -- graphs --------------------------------------------------------------------------------------
def op_fn(fn, path):
    """The callable `fn.<path>` (dotted)."""
    for part in path.split("."):
        fn = getattr(fn, part)
    return fn


def half(size):
    return SIDE[size] // 2


def sources(fn, kinds, size, batch_size=BATCH_SIZE):
    """One external_source per input kind, each returning the same prepared batch."""
    nodes = []
    for kind in kinds:
        samples, layout = batch(kind, size, batch_size)
        kwargs = {"layout": layout} if layout else {}
        nodes.append(fn.external_source(source=_constant(samples), **kwargs))
    return nodes


def _constant(samples):
    # no parameters: external_source passes an iteration number to a callback that takes one
    return lambda: samples


def op_graph(case, size, batch_size=BATCH_SIZE):
    """graph(fn, types) of the operator pipeline of `case`."""
    def graph(fn, types):
        out = case.graph(fn, types, *sources(fn, case.inputs, size, batch_size), size=size)
        return tuple(out) if isinstance(out, list) else out
    return graph


def baseline_graph(case, size, batch_size=BATCH_SIZE):
    """graph(fn, types) of the pipeline subtracted from `case`'s: its sources, each consumed by
    `.shape()`, or for an "idle" case one `fn.zeros` of one-byte samples (module docstring)."""
    def graph(fn, types):
        if case.baseline != "source" or not case.inputs:
            return fn.zeros(shape=[1], dtype=types.UINT8)
        nodes = [node.shape() for node in sources(fn, case.inputs, size, batch_size)]
        return tuple(nodes) if len(nodes) > 1 else nodes[0]
    return graph


# -- case builders ------------------------------------------------------------------------------
def unary(name, kind="u8", op=None, **kwargs):
    """Case: `fn.<op>(x, **kwargs)` with arguments that do not depend on the size."""
    op = op or name
    return OpCase(name, op, lambda fn, types, x, size: op_fn(fn, op)(x, **kwargs), (kind,))


class _Renamed:
    """`fn` in which the operator at `path` is the one at `alias` (other names unchanged)."""

    def __init__(self, fn, path, alias, root=None):
        self._fn, self._path, self._alias = fn, path.split("."), alias
        self._root = fn if root is None else root

    def __getattr__(self, name):
        if name != self._path[0]:
            return getattr(self._fn, name)
        if len(self._path) == 1:
            return op_fn(self._root, self._alias)
        return _Renamed(getattr(self._fn, name), ".".join(self._path[1:]), self._alias,
                        self._root)


def aliased(case, alias):
    """The case of deprecated operator `alias`: `case` with its operator called by that name."""
    return dataclasses.replace(
        case, name=alias, op=alias,
        graph=lambda fn, types, *nodes, size: case.graph(_Renamed(fn, case.op, alias), types,
                                                          *nodes, size=size))
