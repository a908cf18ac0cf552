"""Random cases of the resampling kernels (dali/ops/geometry/resize.cu), shared by the emulated
(test_emulation_resize.py) and the device (test_cupy_resize.py) tests.

Each case runs an operator on the CPU through a pipeline, recording the call of
`_resize_common.resample_samples` its run makes (layout, shapes, source regions, filters), then
runs the kernels of the `_resize_gpu.Program` built from that call through a backend
(`gpu_cases.emulated` or `gpu_cases.on_device`) and returns both outputs.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np
from gpu_cases import _pack, _unpack
from pipeline_utils import run_op

from dali import _registry
from dali import types as dali_types
from dali._types import DALIInterpType as Interp
from dali.ops.geometry import _resize_common, _resize_gpu

RESIZE_CU = _resize_gpu.__file__.replace("_resize_gpu.py", "resize.cu")
LAYOUTS = ("HWC", "CHW", "FHWC", "DHWC", "FCHW", "CDHW", "FDHWC", "HWC")
DTYPES = (np.uint8, np.int16, np.uint16, np.float32)
INTERPS = tuple(Interp)


@contextlib.contextmanager
def recorded(name):
    """Record the CPU runs of operator `name` inside the block: a list of dicts (thread, op,
    plan, in_shapes, in_dtype, out_dtype, filters: `_resize_common.filter_codes`)."""
    cls = _registry.get(name)
    calls = []
    original = cls.run_cpu

    def record(op, ws, plan):
        shapes = ws.input_storage(0).shapes
        calls.append({"thread": threading.get_ident(), "op": op, "plan": plan,
                      "in_shapes": [tuple(s) for s in shapes], "in_dtype": ws.input_dtype(0),
                      "out_dtype": plan.outputs[0].dtype,
                      "filters": _resize_common.filter_codes(ws)})
        original(op, ws, plan)

    cls.run_cpu = record
    try:
        yield calls
    finally:
        cls.run_cpu = original


def _samples(rng, layout, dtype, n, empty):
    samples = []
    for i in range(n):
        shape = [int(rng.integers(1, 11)) for _ in layout]
        if "C" in layout:
            shape[layout.index("C")] = int(rng.choice([1, 2, 3, 4, 10]))
        if "F" in layout:
            shape[layout.index("F")] = int(rng.integers(1, 3))
        if "D" in layout:
            shape[layout.index("D")] = int(rng.integers(1, 6))
        if empty and i == n - 1:
            shape[layout.index("H")] = 0
        samples.append(_values(rng, shape, dtype))
    return samples


def _values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        x = (rng.standard_normal(shape) * 100).astype(dtype)
        x[rng.random(shape) < 0.2] = -0.0              # signs of zero
        if x.size and rng.random() < 0.3:
            x.reshape(-1)[rng.integers(0, x.size)] = np.nan
        return x
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -3000), min(info.max, 3000)
    if dtype == np.uint8:
        lo, hi = 0, 255
    return rng.integers(lo, hi, shape, endpoint=True).astype(dtype)


def resize_case(seed):
    """(samples, layout, kwargs, argument inputs) of a random fn.resize call: a size per
    spatial axis (up, down, kept, negative: mirrored) or resize_shorter, modes, a region of
    interest, min/mag filters (some per sample, as argument inputs), antialias, dtype."""
    rng = np.random.default_rng(seed)
    layout = LAYOUTS[seed % len(LAYOUTS)]
    dtype = DTYPES[(seed // 2) % len(DTYPES)]
    n = int(rng.integers(1, 5))
    samples = _samples(rng, layout, dtype, n, empty=seed % 7 == 3)
    spatial = [c for c in layout if c in "DHW"]
    kwargs = {"antialias": bool(rng.integers(0, 2))}
    if rng.random() < 0.5:
        kwargs["dtype"] = dali_types.FLOAT
    arg_inputs = {}
    choice = rng.integers(0, 3)
    if choice == 0:
        sizes = [[float(rng.choice([0, 1, 2, 3, 5, 8, 13, 17, 24, -6])) for _ in spatial]
                 for _ in range(n)]
        for s in sizes:
            s[-1] = s[-1] or 7.0
        if seed % 2:                                   # per sample, as an argument input
            arg_inputs["size"] = [np.array(s, np.float32) for s in sizes]
        else:
            kwargs["size"] = sizes[0]
        kwargs["mode"] = str(rng.choice(["default", "stretch", "not_larger", "not_smaller"]))
    elif choice == 1:
        kwargs["resize_shorter"] = float(rng.integers(2, 20))
    else:
        kwargs["size"] = [float(rng.integers(1, 20)) for _ in spatial]
        start = rng.uniform(0, 0.5, len(spatial))
        end = rng.uniform(0.4, 1, len(spatial))
        flip = rng.random(len(spatial)) < 0.3
        start[flip], end[flip] = end[flip], start[flip]
        kwargs.update(roi_start=[float(v) for v in start], roi_end=[float(v) for v in end],
                      roi_relative=True)
        kwargs["subpixel_scale"] = bool(rng.integers(0, 2))
    _filters(rng, n, seed, kwargs, arg_inputs)
    return samples, layout, kwargs, arg_inputs


def resize_expected(samples, layout, kwargs, arg_inputs):
    """fn.resize on the CPU: (outputs, the recorded resample_samples call)."""
    return op_expected("resize", samples, layout, kwargs, arg_inputs)


def op_expected(name, samples, layout, kwargs, arg_inputs):
    """fn.<name> on the CPU: (outputs of the first batch, its recorded resample_samples
    call)."""
    names = list(arg_inputs)

    def build(fn, x, *args):
        op = fn
        for part in name.split("."):
            op = getattr(op, part)
        return op(x, **kwargs, **dict(zip(names, args, strict=True)))

    with recorded(name) as calls:        # run synchronously: no batch ahead
        out = run_op(build, [samples, *arg_inputs.values()],
                     layouts=[layout] + [None] * len(names), exec_async=False,
                     exec_pipelined=False)[0]
    # this thread's run (a pipeline of another test may still run ahead in the background)
    mine = [c for c in calls if c["thread"] == threading.get_ident()]
    assert len(mine) == 1
    return out, mine[0]


def _filters(rng, n, seed, kwargs, arg_inputs):
    if seed % 3 == 0:
        arg_inputs["min_filter"] = [np.array(rng.choice(INTERPS), np.int32) for _ in range(n)]
        arg_inputs["mag_filter"] = [np.array(rng.choice(INTERPS), np.int32) for _ in range(n)]
    elif seed % 3 == 1:
        kwargs["min_filter"] = Interp(rng.choice(INTERPS))
        kwargs["mag_filter"] = Interp(rng.choice(INTERPS))
    else:
        kwargs["interp_type"] = Interp(rng.choice(INTERPS))


def random_resized_crop_case(seed):
    """(samples, layout, kwargs, argument inputs) of a random fn.random_resized_crop call."""
    rng = np.random.default_rng(seed)
    layout = ("HWC", "CHW", "FHWC", "HWC")[seed % 4]      # 2-D only
    dtype = DTYPES[(seed // 2) % len(DTYPES)]
    n = int(rng.integers(1, 5))
    samples = _samples(rng, layout, dtype, n, empty=False)
    spatial = sum(c in "DHW" for c in layout)
    kwargs = {"antialias": bool(rng.integers(0, 2)), "seed": seed,
              "size": [float(rng.integers(1, 16)) for _ in range(spatial)],
              "random_area": [0.1, 1.0]}
    if rng.random() < 0.5:
        kwargs["dtype"] = dali_types.FLOAT
    arg_inputs = {}
    _filters(rng, n, seed, kwargs, arg_inputs)
    return samples, layout, kwargs, arg_inputs


def resize_crop_mirror_case(seed):
    """(samples, layout, kwargs, argument inputs) of a random fn.resize_crop_mirror call:
    crop windows anywhere in the resized image, mirror flags per sample."""
    rng = np.random.default_rng(seed)
    layout = ("HWC", "CHW", "FHWC", "DHWC")[seed % 4]
    dtype = DTYPES[(seed // 2) % len(DTYPES)]
    n = int(rng.integers(1, 5))
    samples = _samples(rng, layout, dtype, n, empty=False)
    spatial = [c for c in layout if c in "DHW"]
    kwargs = {"antialias": bool(rng.integers(0, 2)),
              "size": [float(rng.integers(4, 20)) for _ in spatial],
              "crop": [float(rng.integers(1, 5)) for _ in spatial],
              "crop_pos_x": float(rng.random()), "crop_pos_y": float(rng.random())}
    if "D" in spatial:
        kwargs["crop_pos_z"] = float(rng.random())
    arg_inputs = {"mirror": [np.array(rng.integers(0, 4), np.int32) for _ in range(n)]}
    _filters(rng, n, seed, kwargs, arg_inputs)
    return samples, layout, kwargs, arg_inputs


def tensor_resize_case(seed):
    """(samples, layout, kwargs, argument inputs) of a random fn.tensor_resize call: 1-D to
    4-D tensors resized along a block of up to 3 axes (by sizes or scales, a region of
    interest sometimes), or 3-D ones along their first two (the image batch path); some
    samples kept as they are (copied)."""
    rng = np.random.default_rng(seed)
    dtype = DTYPES[(seed // 2) % len(DTYPES)]
    ndim = 3 if seed % 4 == 0 else int(rng.integers(1, 5))
    n = int(rng.integers(1, 5))
    samples = [_values(rng, [int(rng.integers(1, 8)) for _ in range(ndim)], dtype)
               for _ in range(n)]
    count = min(ndim, 2 if seed % 4 == 0 else int(rng.integers(1, 4)))
    first = 0 if seed % 4 == 0 else int(rng.integers(0, ndim - count + 1))
    axes = list(range(first, first + count))
    kwargs = {"antialias": bool(rng.integers(0, 2)), "axes": axes}
    if rng.random() < 0.5:
        kwargs["dtype"] = dali_types.FLOAT
    arg_inputs = {}
    if rng.random() < 0.5:
        arg_inputs["sizes"] = [np.array([float(rng.choice([0, 1, 3, 6, 11]))
                                         for _ in axes], np.float32) for _ in range(n)]
        for i, s in enumerate(samples):            # one sample kept whole
            if i == 1:
                arg_inputs["sizes"][i] = np.array([s.shape[a] for a in axes], np.float32)
        if not all(v.any() for v in arg_inputs["sizes"]):
            arg_inputs["sizes"] = [v + 2 for v in arg_inputs["sizes"]]
    else:
        kwargs["scales"] = [float(rng.choice([0.5, 1.0, 1.7, 3.0])) for _ in axes]
        kwargs["size_rounding"] = str(rng.choice(["round", "truncate", "ceil"]))
        if rng.random() < 0.5:
            kwargs.update(roi_start=[float(v) for v in rng.uniform(0, 0.4, count)],
                          roi_end=[float(v) for v in rng.uniform(0.6, 1, count)],
                          roi_relative=True)
    _filters(rng, n, seed, kwargs, arg_inputs)
    return samples, None, kwargs, arg_inputs


def resample_kernel(backend, samples, call):
    """The kernels' output samples for the recorded CPU run `call` (the program its operator's
    run_gpu builds), run by `backend`; also the program."""
    in_dtype, out_dtype = np.dtype(call["in_dtype"]), np.dtype(call["out_dtype"])
    op, plan = call["op"], call["plan"]
    if hasattr(op, "gpu_program"):
        program = op.gpu_program(plan, call["in_shapes"], call["filters"], in_dtype, out_dtype)
    else:
        program = _resize_gpu.plan_program(plan, call["in_shapes"], call["filters"],
                                           op.args["antialias"], in_dtype, out_dtype)
    return run_program(backend, program, samples, plan.outputs[0].shapes, out_dtype), program


def pipeline_outputs(name, samples, layout, kwargs, arg_inputs, device_id, iterations=1):
    """fn.<name> over `samples` in a pipeline on `device_id` (0: the input moved to the GPU
    first, the operator run there; None: the CPU), its outputs as numpy arrays per iteration
    (argument inputs stay on the CPU)."""
    import dali

    @dali.pipeline_def(batch_size=len(samples), num_threads=2, device_id=device_id, seed=7,
                       exec_async=False, exec_pipelined=False)
    def pipe():
        x = dali.fn.external_source(source=lambda: samples, layout=layout, batch=True)
        args = {k: dali.fn.external_source(source=_constant(v), batch=True)
                for k, v in arg_inputs.items()}
        op = dali.fn
        for part in name.split("."):
            op = getattr(op, part)
        out = op(x.gpu() if device_id is not None else x, **kwargs, **args)
        return tuple(out) if isinstance(out, (list, tuple)) else (out,)

    p = pipe()
    p.build()
    runs = []
    for _ in range(iterations):
        outs = p.run()
        runs.append([[np.asarray(t) for t in (o.as_cpu() if device_id is not None else o)]
                     for o in outs])
        if device_id is not None:
            assert all(type(o).__name__ == "TensorListGPU" for o in outs)
    return runs


def _constant(batch):
    return lambda: batch


def run_program(backend, program, samples, out_shapes, out_dtype):
    """The output samples of `program` run by `backend` on packed `samples`."""
    size = sum(int(np.prod(s)) for s in out_shapes)
    buffers = {"input": _pack(samples, samples[0].dtype), "output": np.zeros(size, out_dtype),
               "tmp0": np.zeros(max(program.tmp_sizes[0], 1), np.float32),
               "tmp1": np.zeros(max(program.tmp_sizes[1], 1), np.float32)}
    for launch in program.launches:
        args = _resize_gpu.launch_args(launch, buffers, program.starts, program.weights)
        got = backend(RESIZE_CU, launch, args)
        buffers[launch.src], buffers[launch.dst] = got[0], got[1]
    return _unpack(buffers["output"], out_shapes)
