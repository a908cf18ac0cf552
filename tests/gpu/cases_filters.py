"""Random cases of the convolution kernels (`dali/ops/filters/convolution.cu`), shared by the
emulated and the device tests: each case runs the CPU operator (fn.gaussian_blur, fn.laplacian
or fn.filter) through a pipeline, keeping the plan its `run_cpu` got, then runs the kernels of
`_convolution_gpu`'s program for that plan through a backend (`gpu_cases.emulated` or
`gpu_cases.on_device`) on the same samples.
"""

from __future__ import annotations

import contextlib

import numpy as np
from gpu_cases import _pack, _random, _unpack
from gpu_cases import assert_same as gpu_same
from pipeline_utils import run_op

from dali import pipeline_def
from dali import types as dali_types
from dali.ops.filters import _convolution_gpu, gaussian_blur, laplacian
from dali.ops.filters import filter as filter_op

SEP_DTYPES = (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.float32,
              np.float16, np.int64, np.float64)
# layouts and how many data axes they have
SEP_LAYOUTS = ("HWC", "CHW", "FHWC", "DHWC", "FCHW", "HW", "W", "DHW", "FWC", "CDHW")
FILTER_DTYPES = (np.uint8, np.int16, np.uint16, np.float32)
FILTER_LAYOUTS = ("HWC", "CHW", "FHWC", "FCHW", "HW")
BORDERS = ("reflect_101", "reflect_1001", "wrap", "clamp", "constant")


@contextlib.contextmanager
def recorded(cls, take=lambda op, ws, plan: plan):
    """What `take(op, ws, plan)` returns at every `cls.run_cpu` while the block runs (by
    default the plan): a host helper called there sees the very plan and workspace of the CPU
    path, as `run_gpu` will."""
    taken = []
    own = cls.__dict__.get("run_cpu")
    original = cls.run_cpu

    def run_cpu(self, ws, plan):
        taken.append(take(self, ws, plan))
        return original(self, ws, plan)

    cls.run_cpu = run_cpu
    try:
        yield taken
    finally:
        if own is None:
            del cls.run_cpu
        else:
            cls.run_cpu = own


def run_sync(cls, build, inputs, layouts, take=lambda op, ws, plan: plan):
    """(expected output samples, what `take` returned at the CPU run): a synchronous pipeline,
    so that no other pipeline (one of an earlier test running ahead in the background) calls
    the patched `run_cpu`."""
    with recorded(cls, take) as taken:
        expected = run_op(build, inputs, layouts=layouts, exec_async=False,
                          exec_pipelined=False)[0]
    return expected, taken[-1]


def _shape(rng, layout, lo=1, hi=9):
    shape = [int(rng.integers(lo, hi)) for _ in layout]
    if "C" in layout:
        shape[layout.index("C")] = int(rng.choice([1, 2, 3]))
    if "F" in layout:
        shape[layout.index("F")] = int(rng.integers(1, 4))
    if "D" in layout:
        shape[layout.index("D")] = int(rng.integers(1, 5))
    return shape


def _batch(rng, layout, dtype, n, lo=1):
    samples = [_random(rng, _shape(rng, layout, lo), dtype) for _ in range(n)]
    if n > 1 and rng.integers(0, 4) == 0:        # an empty sample
        shape = list(samples[0].shape)
        shape[-1 if layout[-1] != "C" else 0] = 0
        samples[1] = np.zeros(shape, dtype)
    return samples


def _data_axes(layout):
    return sum(c not in "FC" for c in layout)


def _per_sample(rng, samples, layout, values, naxes, dtype):
    """(argument input samples, per frame): one scalar or one row per axis per sample, or
    (sequences) one row per frame."""
    form = int(rng.integers(0, 3 if layout[0] == "F" else 2))
    if form == 2:
        return [np.array([[values(rng) for _ in range(naxes)] for _ in range(s.shape[0])],
                         dtype) for s in samples], True
    if form == 1:
        return [np.array([values(rng) for _ in range(naxes)], dtype) for _ in samples], False
    return [np.array(values(rng), dtype) for _ in samples], False


def _run_separable(cls, name, samples, layout, kwargs, arg_inputs):
    """(expected, plan) of fn.<name> with `arg_inputs`: name -> (samples, per frame)."""
    names = list(arg_inputs)

    def build(fn, x, *args):
        given = {k: fn.per_frame(a) if arg_inputs[k][1] else a
                 for k, a in zip(names, args, strict=True)}
        return getattr(fn, name)(x, **kwargs, **given)

    inputs = [samples] + [arg_inputs[k][0] for k in names]
    return run_sync(cls, build, inputs, [layout] + [None] * len(names))


def _sep_program(samples, plan):
    in_dtype = samples[0].dtype
    out = plan.outputs[0]
    return _convolution_gpu.separable(plan.geometry, plan.windows, plan.index, plan.scales,
                                      in_dtype, np.dtype(out.dtype)), out


def run_program(backend, program, samples, out_shapes, out_dtype):
    """The output samples of a `dali.ops._gpu_program.Program` run by `backend` (each launch
    names its .cu file): the input packed, scratch buffers zeroed or the program's arrays."""
    size = sum(int(np.prod(s, dtype=np.int64)) for s in out_shapes)
    buffers = {"src": _pack(samples, samples[0].dtype), "dst": np.zeros(size, out_dtype)}
    buffers.update({k: v.copy() if isinstance(v, np.ndarray) else np.zeros(v, np.uint8)
                    for k, v in program.temps.items()})
    for launch in program.launches:
        args = [buffers[a] if isinstance(a, str) else a for a in launch.args]
        done = backend(launch.module, launch, args)
        for a, value in zip(launch.args, done, strict=True):
            if isinstance(a, str):
                buffers[a] = value
    return _unpack(buffers["dst"], out_shapes)


# ---- gaussian_blur -----------------------------------------------------------------------
def gaussian_case(seed):
    """(samples, layout, kwargs, arg_inputs): sigma and window_size as constants or argument
    inputs (per sample or per frame), output type the input's or float32."""
    rng = np.random.default_rng(seed)
    layout = SEP_LAYOUTS[seed % len(SEP_LAYOUTS)]
    dtype = np.dtype(SEP_DTYPES[seed % len(SEP_DTYPES)])
    samples = _batch(rng, layout, dtype, int(rng.integers(1, 4)))
    naxes = _data_axes(layout)
    kwargs, arg_inputs = {}, {}
    if rng.integers(0, 2):
        kwargs["dtype"] = dali_types.FLOAT
    choice = seed % 3
    if choice == 0:
        kwargs["sigma"] = [float(v) for v in rng.uniform(0.3, 3, int(rng.choice([1, naxes])))]
        if rng.integers(0, 2):
            kwargs["window_size"] = int(rng.choice([1, 3, 5, 7, 11, 21]))
    elif choice == 1:
        kwargs["window_size"] = [int(v) for v in rng.choice([1, 3, 5, 9], naxes)]
    else:
        arg_inputs["sigma"] = _per_sample(rng, samples, layout,
                                          lambda r: float(r.uniform(0.3, 2.5)), naxes,
                                          np.float32)
    return samples, layout, kwargs, arg_inputs


def gaussian_run(backend, samples, layout, kwargs, arg_inputs):
    """(expected, got): the CPU operator's output and the kernels'."""
    expected, plan = _run_separable(gaussian_blur.GaussianBlur, "gaussian_blur", samples,
                                    layout, kwargs, arg_inputs)
    program, out = _sep_program(samples, plan)
    return expected, run_program(backend, program, samples, out.shapes, out.dtype)


# ---- laplacian ---------------------------------------------------------------------------
def laplacian_case(seed):
    rng = np.random.default_rng(seed)
    layout = SEP_LAYOUTS[seed % len(SEP_LAYOUTS)]
    dtype = np.dtype(SEP_DTYPES[seed % (len(SEP_DTYPES) - 1)])        # no float64
    samples = _batch(rng, layout, dtype, int(rng.integers(1, 4)))
    naxes = _data_axes(layout)
    kwargs, arg_inputs = {}, {}
    if rng.integers(0, 2):
        kwargs["dtype"] = dali_types.FLOAT
    kwargs["window_size"] = [int(v) for v in rng.choice([3, 5, 7], int(rng.choice([1, naxes])))]
    if rng.integers(0, 2):
        kwargs["smoothing_size"] = [int(v) for v in rng.choice([1, 3, 5], naxes)]
    choice = seed % 3
    if choice == 0:
        kwargs["normalized_kernel"] = True
    elif choice == 1:
        kwargs["scale"] = [float(v) for v in rng.uniform(-2, 2, naxes)]
    else:
        arg_inputs["scale"] = _per_sample(rng, samples, layout,
                                          lambda r: float(r.uniform(-2, 2)), naxes, np.float32)
    return samples, layout, kwargs, arg_inputs


def laplacian_run(backend, samples, layout, kwargs, arg_inputs):
    expected, plan = _run_separable(laplacian.Laplacian, "laplacian", samples, layout, kwargs,
                                    arg_inputs)
    program, out = _sep_program(samples, plan)
    return expected, run_program(backend, program, samples, out.shapes, out.dtype)


# ---- filter ------------------------------------------------------------------------------
def filter_case(seed):
    """(samples, layout, filters, per_frame, fills, kwargs): filters with zero taps and
    large weights (saturation), per frame on some sequences, every border and mode."""
    rng = np.random.default_rng(seed)
    layout = FILTER_LAYOUTS[seed % len(FILTER_LAYOUTS)]
    dtype = np.dtype(FILTER_DTYPES[seed % len(FILTER_DTYPES)])
    mode = "valid" if seed % 4 == 3 else "same"
    samples = _batch(rng, layout, dtype, int(rng.integers(1, 4)), lo=5)
    if mode == "valid":
        samples = [s for s in samples if s.size] or samples[:1]
    if dtype == np.float32:        # an infinity: 0 * inf would be NaN where a tap is not skipped
        for s in samples:
            s.reshape(-1)[rng.integers(0, max(s.size, 1), min(s.size, 1))] = np.inf
    per_frame = layout[0] == "F" and bool(rng.integers(0, 2))
    fshape = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))

    def one_filter():
        f = rng.uniform(-1, 1, fshape).astype(np.float32)
        f[rng.random(fshape) < 0.3] = 0
        return f * np.float32(rng.choice([1, 40]))

    filters = [np.array([one_filter() for _ in range(s.shape[0])], np.float32)
               .reshape(-1, *fshape) if per_frame else one_filter() for s in samples]
    border = BORDERS[seed % len(BORDERS)]
    fills = [_random(rng, (), dtype) for _ in samples] if border == "constant" else None
    kwargs = {"border": border, "mode": mode}
    if rng.integers(0, 2):
        kwargs["dtype"] = dali_types.FLOAT
    if mode == "same" and rng.integers(0, 2):
        kwargs["anchor"] = [int(rng.integers(-1, fshape[0])), int(rng.integers(-1, fshape[1]))]
    return samples, layout, filters, per_frame, fills, kwargs


def filter_run(backend, samples, layout, filters, per_frame, fills, kwargs):
    inputs = [samples, filters] + ([fills] if fills is not None else [])

    def build(fn, x, w, *fill):
        return fn.filter(x, fn.per_frame(w) if per_frame else w, *fill, **kwargs)

    expected, plan = run_sync(filter_op.Filter, build, inputs,
                              [layout] + [None] * (len(inputs) - 1))
    out = plan.outputs[0]
    program = _convolution_gpu.filter_(
        plan.geometry, plan.out_geometry, plan.filters, plan.index, plan.anchors, plan.fills,
        BORDERS.index(kwargs["border"]), samples[0].dtype, np.dtype(out.dtype))
    return expected, run_program(backend, program, samples, out.shapes, out.dtype)


def assert_same_as_cpu(graph_of, batch_size, iterations=2, ulps=0, **pipe_kwargs):
    """graph_of(on_gpu) on device 0 (the emulated device of the `emulated_gpu` fixture) and on
    the CPU give equal outputs over `iterations` runs (floats within `ulps`), the GPU ones
    TensorListGPU with the same layout, type and shapes."""
    def outputs(on_gpu):
        @pipeline_def(batch_size=batch_size, num_threads=2, device_id=0 if on_gpu else None,
                      seed=7, prefetch_queue_depth=1, **pipe_kwargs)
        def pipe():
            return graph_of(on_gpu)

        p = pipe()
        p.build()
        return [p.run() for _ in range(iterations)]

    for gpu, cpu in zip(outputs(True), outputs(False), strict=True):
        for g, c in zip(gpu, cpu, strict=True):
            assert type(g).__name__ == "TensorListGPU"
            assert g.layout() == c.layout() and g.dtype == c.dtype and g.shape() == c.shape()
            for a, b in zip(g.as_cpu(), c, strict=True):
                gpu_same([np.asarray(a)], [np.asarray(b)], ulps)
