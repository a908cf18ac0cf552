"""Random cases of the box and coordinate kernels (`dali/ops/detection/boxes.cu`,
`dali/ops/geometry/coords.cu`), shared by the emulated and the device tests: each case runs
the CPU operator (fn.bb_flip, fn.box_encoder, fn.coord_flip, fn.coord_transform) through a
synchronous pipeline whose `run_cpu` also builds the kernel's launch from its plan and workspace (as
`run_gpu` will), then runs that launch through a backend on the same samples.
"""

from __future__ import annotations

import numpy as np
from cases_filters import recorded, run_sync
from gpu_cases import _pack, _random, _unpack
from pipeline_utils import run_op

from dali import types as dali_types
from dali.ops.detection import _boxes_gpu, bb_flip, box_encoder
from dali.ops.geometry import _coords_gpu, coord_flip, coord_transform

BOXES_CU = _boxes_gpu.__file__.replace("_boxes_gpu.py", "boxes.cu")
COORDS_CU = _coords_gpu.__file__.replace("_coords_gpu.py", "coords.cu")
TRANSFORM_DTYPES = (np.uint8, np.int16, np.uint16, np.int32, np.float32)


def _flags(rng, n, names, make):
    """Constant keyword arguments or per-sample argument inputs, at random."""
    kwargs, arg_inputs = {}, {}
    for name in names:
        if rng.integers(0, 2):
            arg_inputs[name] = [np.array(make(rng), np.asarray(make(rng)).dtype)
                                for _ in range(n)]
        else:
            kwargs[name] = make(rng).item()
    return kwargs, arg_inputs


def _run(cls, name, samples, layout, kwargs, arg_inputs, take):
    names = list(arg_inputs)

    def build(fn, x, *args):
        return getattr(fn, name)(x, **kwargs, **dict(zip(names, args, strict=True)))

    return run_sync(cls, build, [samples] + [arg_inputs[k] for k in names],
                    [layout] + [None] * len(names), take)


def _launch(backend, cu, launch, samples, out_shapes, out_dtype, *tables):
    if launch is None:
        return [np.zeros(s, out_dtype) for s in out_shapes]
    size = sum(int(np.prod(s, dtype=np.int64)) for s in out_shapes)
    args = backend(cu, launch, [_pack(samples, samples[0].dtype), np.zeros(size, out_dtype),
                                *tables])
    return _unpack(args[1], out_shapes)


# ---- bb_flip -------------------------------------------------------------------------------
def bb_flip_case(seed):
    """(samples, kwargs, arg_inputs): 2-D (N, 4) or 3-D (N, 6) boxes, some samples empty, ltrb
    or xywh, flags constant or per sample."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5))
    size = 6 if seed % 3 == 2 else 4
    samples = [rng.uniform(0, 1, (int(rng.integers(0, 7)), size)).astype(np.float32)
               for _ in range(n)]
    kwargs, arg_inputs = _flags(rng, n, ("horizontal", "vertical"),
                                lambda r: np.int32(r.integers(0, 2)))
    kwargs["ltrb"] = bool(seed % 2)
    return samples, kwargs, arg_inputs


def bb_flip_run(backend, samples, kwargs, arg_inputs):
    def take(op, ws, plan):
        return plan, _boxes_gpu.bb_flip(plan.size, plan.counts,
                                        ws.arg_array("horizontal", np.int32),
                                        ws.arg_array("vertical", np.int32), op.args["ltrb"])

    expected, (plan, launch) = _run(bb_flip.BbFlip, "bb_flip", samples, None, kwargs,
                                    arg_inputs, take)
    got = _launch(backend, BOXES_CU, launch, samples, plan.outputs[0].shapes, np.float32,
                  *(() if launch is None else (launch.samples, launch.size, launch.ltrb)))
    return expected, got


# ---- coord_flip ----------------------------------------------------------------------------
def coord_flip_case(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5))
    cols = seed % 3 + 1
    samples = [(rng.standard_normal((int(rng.integers(0, 9)), cols)) * 3).astype(np.float32)
               for _ in range(n)]
    kwargs, arg_inputs = _flags(rng, n, ("flip_x", "flip_y", "flip_z"),
                                lambda r: np.int32(r.integers(0, 2)))
    centers, more = _flags(rng, n, ("center_x", "center_y", "center_z"),
                           lambda r: np.float32(r.uniform(-2, 2)))
    kwargs.update(centers)
    arg_inputs.update(more)
    if rng.integers(0, 2):
        kwargs["layout"] = "".join(rng.permutation(list("xyz"[:cols])))
    return samples, kwargs, arg_inputs


def coord_flip_run(backend, samples, kwargs, arg_inputs):
    def take(op, ws, plan):
        axes = plan.columns
        return plan, _coords_gpu.coord_flip(
            ws.input_storage(0).shapes[:, 0], plan.ndim, axes,
            {a: ws.arg_array(f"flip_{a}", np.int32) for a in axes},
            {a: ws.arg_array(f"center_{a}", np.float32) for a in axes})

    expected, (plan, launch) = _run(coord_flip.CoordFlip, "coord_flip", samples, None, kwargs,
                                    arg_inputs, take)
    got = _launch(backend, COORDS_CU, launch, samples, plan.outputs[0].shapes, np.float32,
                  *(() if launch is None else (launch.parts, launch.table, launch.cols)))
    return expected, got


# ---- coord_transform -----------------------------------------------------------------------
def coord_transform_case(seed):
    """(samples, layout, kwargs, arg_inputs, per_frame): points of 1 to 4 coordinates, plain
    or sequences, M / T / MT constant, per sample or per frame, output float or the input's."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(TRANSFORM_DTYPES[seed % len(TRANSFORM_DTYPES)])
    n = int(rng.integers(1, 4))
    cols, rows = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    sequence = seed % 4 == 1
    frames = [int(rng.integers(1, 4)) for _ in range(n)]
    # the first sample has points: the CPU operator fails on a batch without any
    samples = [_random(rng, ((f,) if sequence else ()) + (int(rng.integers(i == 0, 6)), cols),
                       dtype) for i, f in enumerate(frames)]
    layout = "FPC" if sequence else None
    kwargs, arg_inputs, per_frame = {}, {}, False
    form = seed % 3
    if rng.integers(0, 2):
        kwargs["dtype"] = dali_types.to_dali_type(dtype)
    if form == 0:
        kwargs["M"] = [float(v) for v in rng.uniform(-3, 3, rows * cols)]
        kwargs["T"] = [float(v) for v in rng.uniform(-50, 50, rows)]
    elif form == 1:
        kwargs["MT"] = [float(v) for v in rng.uniform(-3, 3, rows * (cols + 1))]
    else:
        per_frame = bool(rng.integers(0, 2))
        arg_inputs["M"] = [rng.uniform(-3, 3, ((f,) if per_frame else ()) + (rows, cols))
                           .astype(np.float32) for f in frames]
        arg_inputs["T"] = [rng.uniform(-50, 50, rows).astype(np.float32) for _ in frames]
    return samples, layout, kwargs, arg_inputs, per_frame


def coord_transform_run(backend, samples, layout, kwargs, arg_inputs, per_frame):
    names = list(arg_inputs)

    def build(fn, x, *args):
        given = {k: fn.per_frame(a) if per_frame and k == "M" else a
                 for k, a in zip(names, args, strict=True)}
        return fn.coord_transform(x, **kwargs, **given)

    def take(op, ws, plan):
        out = plan.outputs[0]
        return plan, _coords_gpu.coord_transform(plan.mats, plan.points, plan.cols, plan.frames,
                                                 plan.repeat, ws.input_dtype(0), out.dtype)

    expected, (plan, launch) = run_sync(coord_transform.CoordTransform, build,
                                        [samples] + [arg_inputs[k] for k in names],
                                        [layout] + [None] * len(names), take)
    out = plan.outputs[0]
    got = _launch(backend, COORDS_CU, launch, samples, out.shapes, out.dtype,
                  *(() if launch is None else (launch.parts, launch.table, launch.rows,
                                               launch.cols)))
    return expected, got


# ---- box_encoder ---------------------------------------------------------------------------
def box_encoder_case(seed):
    """(boxes, labels, kwargs): boxes on a coarse grid (equal IoUs: ties), some samples empty,
    several boxes best for one anchor, labels (N,) or (N, 1), criteria, offset, scale, means,
    stds."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5))
    grid = np.float32(1 / 8)

    def ltrb(k):
        lo = rng.integers(0, 6, (k, 2)).astype(np.float32) * grid
        return np.concatenate([lo, lo + rng.integers(1, 3, (k, 2)) * grid], 1).astype(np.float32)

    boxes = [ltrb(int(rng.integers(0, 7))) for _ in range(n)]
    column = bool(seed % 2)
    labels = [rng.integers(1, 20, (len(b), 1) if column else len(b)).astype(np.int32)
              for b in boxes]
    kwargs = {"anchors": [float(v) for v in ltrb(int(rng.integers(1, 40))).reshape(-1)],
              "criteria": float(rng.choice([0.0, 0.3, 0.5, 1.0]))}
    if seed % 3:
        kwargs.update(offset=True, scale=float(rng.choice([1.0, 300.0])),
                      means=[float(v) for v in rng.uniform(-0.5, 0.5, 4)],
                      stds=[float(v) for v in rng.uniform(0.1, 2, 4)])
    return boxes, labels, kwargs


def box_encoder_run(backend, boxes, labels, kwargs):
    """(expected, got): the CPU operator's (encoded boxes, labels) and the kernels'."""
    def take(op, ws, plan):
        a = op.args
        counts = ws.input_storage(0).shapes[:, 0]
        sizes = np.prod(ws.input_storage(1).shapes, axis=1)
        return plan, op.anchors, op.centers, _boxes_gpu.box_encoder(
            counts, sizes, len(op.anchors), a["criteria"], a["offset"], a["scale"], a["means"],
            a["stds"])

    def build(fn, b, lab):
        return tuple(fn.box_encoder(b, lab, **kwargs))

    with recorded(box_encoder.BoxEncoder, take) as taken:
        expected = run_op(build, [boxes, labels], exec_async=False, exec_pipelined=False)
    plan, anchors, centers, enc = taken[-1]
    m = len(anchors)
    out_boxes, out_labels = np.zeros(len(boxes) * m * 4, np.float32), np.zeros(len(boxes) * m,
                                                                               np.int32)
    forced = np.zeros(enc.forced, np.int64)
    src, lab = _pack(boxes, np.float32), _pack(labels, np.int32)
    forced = backend(BOXES_CU, enc.force, [src, anchors, forced, enc.samples, enc.anchors])[2]
    done = backend(BOXES_CU, enc.encode, [src, lab, anchors, centers, forced, out_boxes,
                                          out_labels, enc.samples, enc.params, enc.anchors,
                                          enc.offset])
    return expected, (_unpack(done[5], plan.outputs[0].shapes),
                      _unpack(done[6], plan.outputs[1].shapes))
