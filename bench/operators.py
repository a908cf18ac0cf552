"""One benchmark case per public CPU operator, each written once against a `(fn, types)` pair.

A case measures "the operator alone": `external_source` (a callback returning the same prepared
batch every iteration) feeding the operator, minus the baseline pipeline that runs the source
only (bench/operator_report.py does the timing).  Every case has two input sets:

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
- cases without an input ("idle" baseline) subtract a pipeline whose only operator is an
  external_source of 64 one-byte samples, i.e. the per-iteration cost of a one-operator
  pipeline;
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
        "source": subtract the pipeline of the same sources; "idle": subtract a pipeline with a
        source of one-byte samples.
    """

    name: str
    op: str | None
    graph: object
    inputs: tuple = ("u8",)
    baseline: str = "source"

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


def batch(kind, size, batch_size=BATCH_SIZE):
    """`(samples, layout)` of input `kind` for input set `size` ("image" or "small")."""
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


_ROOTS = {}


def file_root(size):
    """A directory of the "jpeg" samples of `size` in 4 class folders (made once a process)."""
    if size not in _ROOTS:
        root = pathlib.Path(tempfile.mkdtemp(prefix=f"dali-bench-ops-{size}-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        for i, buf in enumerate(batch("jpeg", size)[0]):
            d = root / f"class{i % 4}"
            d.mkdir(exist_ok=True)
            (d / f"{i:03d}.jpg").write_bytes(buf.tobytes())
        _ROOTS[size] = str(root)
    return _ROOTS[size]


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
    """graph(fn, types) of the pipeline subtracted from `case`'s."""
    kinds = case.inputs if case.baseline == "source" and case.inputs else ("tiny",)

    def graph(fn, types):
        nodes = sources(fn, kinds, size, batch_size)
        return tuple(nodes) if len(nodes) > 1 else nodes[0]
    return graph


# -- the cases -------------------------------------------------------------------------------------
def unary(name, kind="u8", op=None, **kwargs):
    """Case: `fn.<op>(x, **kwargs)` with arguments that do not depend on the size."""
    op = op or name
    return OpCase(name, op, lambda fn, types, x, size: op_fn(fn, op)(x, **kwargs), (kind,))


def _decoders(prefix):
    """The four decoders under `prefix` ("decoders.", "experimental.decoders.", "image_decoder")."""
    names = ({"": "image", "_crop": "image_crop", "_random_crop": "image_random_crop",
              "_slice": "image_slice"} if prefix == "image_decoder" else
             {s: s for s in ("image", "image_crop", "image_random_crop", "image_slice")})
    graphs = {
        "image": lambda fn, op, x, types, size: op(x, output_type=types.RGB),
        "image_crop": lambda fn, op, x, types, size: op(x, output_type=types.RGB,
                                                       crop=(half(size), half(size))),
        "image_random_crop": lambda fn, op, x, types, size: op(x, output_type=types.RGB),
        "image_slice": lambda fn, op, x, types, size: op(x, output_type=types.RGB,
                                                        rel_start=(0.25, 0.25),
                                                        rel_shape=(0.5, 0.5)),
    }
    out = []
    for suffix, kind in names.items():
        path = prefix + suffix
        g = graphs[kind]
        out.append(OpCase(path, path, lambda fn, types, x, size, p=path, g=g:
                          g(fn, op_fn(fn, p), x, types, size), ("jpeg",)))
    return out


def _identity(x):
    return x


CASE_LIST = [
    # colour
    unary("brightness", brightness=1.2),
    unary("brightness_contrast", brightness=1.1, contrast=1.2),
    unary("contrast", contrast=1.3),
    unary("saturation", saturation=0.5),
    unary("hue", hue=20.0),
    unary("hsv", hue=20.0, saturation=1.2, value=0.9),
    unary("color_twist", hue=10.0, saturation=1.2, contrast=1.1, brightness=0.9),
    OpCase("color_space_conversion", "color_space_conversion",
           lambda fn, types, x, size: fn.color_space_conversion(
               x, image_type=types.RGB, output_type=types.YCbCr)),
    # geometry and image
    OpCase("crop", "crop", lambda fn, types, x, size: fn.crop(x, crop=(half(size),) * 2)),
    OpCase("crop_mirror_normalize", "crop_mirror_normalize",
           lambda fn, types, x, size: fn.crop_mirror_normalize(
               x, dtype=types.FLOAT, output_layout="CHW", mirror=1,
               mean=pipelines.IMAGENET_MEAN, std=pipelines.IMAGENET_STD)),
    unary("flip", horizontal=1),
    OpCase("resize", "resize",
           lambda fn, types, x, size: fn.resize(x, resize_x=half(size), resize_y=half(size))),
    OpCase("random_resized_crop", "random_resized_crop",
           lambda fn, types, x, size: fn.random_resized_crop(x, size=(SIDE[size],) * 2)),
    OpCase("rotate", "rotate",
           lambda fn, types, x, size: fn.rotate(x, angle=15.0, size=(SIDE[size],) * 2)),
    unary("warp_affine", matrix=[1.0, 0.1, 0.0, 0.1, 1.0, 0.0]),
    unary("sphere"),
    unary("water"),
    unary("jitter"),
    unary("normalize", kind="f32"),
    unary("coord_flip", kind="points"),
    # decoders and readers
    *_decoders("decoders."),
    *_decoders("experimental.decoders."),
    *_decoders("image_decoder"),
    unary("peek_image_shape", kind="jpeg"),
    unary("experimental.peek_image_shape", kind="jpeg"),
    OpCase("readers.file", "readers.file",
           lambda fn, types, size: fn.readers.file(file_root=file_root(size)), (), "idle"),
    # tensor manipulation
    OpCase("cast", "cast", lambda fn, types, x, size: fn.cast(x, dtype=types.FLOAT)),
    OpCase("cast_like", "cast_like", lambda fn, types, x, y, size: fn.cast_like(x, y),
           ("u8", "f32")),
    unary("copy"),
    unary("expand_dims", axes=[0], new_axis_names="F"),
    unary("squeeze", kind="frames", axes=[0]),
    unary("reshape", shape=[-1]),
    OpCase("reinterpret", "reinterpret",
           lambda fn, types, x, size: fn.reinterpret(x, dtype=types.INT8)),
    unary("transpose", perm=[2, 0, 1]),
    unary("per_frame", kind="frames"),
    unary("get_property", key="layout"),
    OpCase("external_source", "external_source", lambda fn, types, x, size: x, ("u8",), "idle"),
    unary("python_function", function=_identity),
    # random
    unary("random.uniform", op="random.uniform"),
    unary("random.normal", op="random.normal"),
    OpCase("random.beta", "random.beta",
           lambda fn, types, size: fn.random.beta(shape=(SIDE[size],) if size == "image" else ()),
           (), "idle"),
    unary("random.coin_flip", op="random.coin_flip"),
    OpCase("random.choice", "random.choice",
           lambda fn, types, size: fn.random.choice(256, shape=(SIDE[size], SIDE[size], 3)),
           (), "idle"),
    # arithmetic expressions (DataNode operators)
    OpCase("arithmetic.mul_add_float", None, lambda fn, types, x, size: x * 0.5 + 1, ("f32",)),
    OpCase("arithmetic.add_uint8", None, lambda fn, types, x, y, size: x + y, ("u8", "u8b")),
]
CASES = {c.name: c for c in CASE_LIST}
if len(CASES) != len(CASE_LIST):
    raise RuntimeError("bench/operators.py: two cases share a name")


# -- what the report covers ----------------------------------------------------------------------
def public_operators():
    """dali's registered public operators (fn paths), sorted."""
    import dali.fn  # noqa: F401  (registers every operator)
    from dali import _registry

    return sorted(name for name, impl in _registry.all_operators().items()
                  if not impl.schema.internal and not name.startswith("test_"))


def row_names(only=None):
    """Rows of the report: dali's public operators and every case, sorted; `only` (names)
    restricts them."""
    names = sorted(set(public_operators()) | set(CASES))
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise ValueError(f"no operator or case named {', '.join(unknown)}")
        names = [n for n in names if n in set(only)]
    return names
