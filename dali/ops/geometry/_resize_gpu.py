"""Host side of the resampling CUDA kernels (`resize.cu`) of fn.resize and the operators that
reduce to "source region + resize" (random_resized_crop, resize_crop_mirror, tensor_resize).

The kernels compute what the CPU engines compute, so the host plans each sample exactly as they
do: the same per-axis filters (`_resampling.region_filters`), pass order
(`_resampling.pass_order`) and input spans (`_resampling.input_span`, 1-D and 2-D samples
only, as `_resampling.resample`), and the same choice of loop per pass (the pixel loop, whose
sums start from 0.f, for at most `SMALL_INNER` values per position when they are contiguous;
else the row loop, whose last pass rounds the first `inner - inner % SIMD_WIDTH` values of a
row half to even).  HWC batches follow the 2-D batch engine (resample_batch.pyx), which runs
nearest neighbour as weighted passes; other layouts the N-D engine, which gathers when every
resized axis has one tap.  Nothing resized is a gather (a copy) in both.

A batch becomes a `Program`: gathers, then round p = 0, 1, 2 of passes (pass p of every sample
that has one), each launch grouping the descriptors that read and write the same buffers.
Pass p > 0 reads the float32 scratch buffer pass p - 1 wrote ("tmp0", "tmp1" alternately);
a sample's last pass writes "output".  The filters' first taps (and the gathers' indices)
are one int32 table, their weights one float32 table, shared by every launch:

    resample_<in>_<out>(src, dst, passes, starts, weights)
    gather_<in>_<out>(src, dst, samples, starts)

with `launch_args` binding the buffer names, and `run` queuing a program on a device.  Pure
numpy; no CuPy here.
"""

from __future__ import annotations

import math
import typing

import numpy as np

from dali.ops.geometry import _resampling, _resize_common

DIMS = 5                        # DALI_RS_DIMS of resize.cu: planes, D0, D1, D2, channels
PASS_FIELDS = 10 + 2 * DIMS     # int64 fields of a ResamplePass
GATHER_FIELDS = 6 + 2 * DIMS    # int64 fields of a ResampleGather
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per descriptor
MAX_SAMPLES = 65535             # gridDim.y
SMALL_INNER = 8                 # resample.pxd: the pixel loop takes at most this many values
SIMD_WIDTH = 16                 # resample_filter.h DALI_RS_SIMD_WIDTH
_CODES = {np.dtype(t): c for t, c in (
    (np.uint8, "u8"), (np.int16, "i16"), (np.uint16, "u16"), (np.float32, "f32"))}
_F32 = np.dtype(np.float32)
_ZERO = np.zeros(1, np.int32)


class Launch(typing.NamedTuple):
    kernel: str                 # resample_<in>_<out> or gather_<in>_<out> of resize.cu
    grid: tuple
    block: tuple
    src: str                    # the buffer read: "input", "tmp0" or "tmp1"
    dst: str                    # the buffer written: "output", "tmp0" or "tmp1"
    descs: np.ndarray           # int64 (m, PASS_FIELDS or GATHER_FIELDS)


class Program(typing.NamedTuple):
    launches: list              # of Launch, in order
    starts: np.ndarray          # int32: first taps and gather indices
    weights: np.ndarray         # float32
    tmp_sizes: tuple            # float32 values of "tmp0" and "tmp1"


def check_types(in_dtype, out_dtype):
    """The element types of a resampling: the input uint8, int16, uint16 or float32, the
    output the input's type or float32; else ValueError."""
    in_dtype, out_dtype = np.dtype(in_dtype), np.dtype(out_dtype)
    if in_dtype not in _CODES or out_dtype not in (in_dtype, _F32):
        raise ValueError(f"resize.cu has no kernel from {in_dtype} to {out_dtype}")
    return in_dtype, out_dtype


def launch_args(launch, buffers, starts, weights):
    """The kernel arguments of `launch`: `buffers` maps "input", "output", "tmp0" and "tmp1"
    to the backend's arrays (or device buffers), `starts` and `weights` are the program's
    tables there."""
    args = [buffers[launch.src], buffers[launch.dst], launch.descs, starts]
    if launch.kernel.startswith("resample_"):
        args.append(weights)
    return args


def run(device, program, src, dst):
    """Queue `program` on `device` (a `dali._gpu.runtime.Device`), reading the device batch
    `src` and writing `dst`: the tables uploaded once, the scratch buffers allocated for it
    (both kept until the stream's work is done)."""
    if not program.launches:
        return
    buffers = {"input": src, "output": dst}
    for k, size in enumerate(program.tmp_sizes):
        if size:
            buffers[f"tmp{k}"] = device.alloc(size * _F32.itemsize)
    starts, weights = device.upload(program.starts), device.upload(program.weights)
    for kept in (starts, weights, *buffers.values()):
        device.keep(kept)
    for launch in program.launches:
        device.launch(__file__, launch.kernel, launch.grid, launch.block,
                      launch_args(launch, buffers, starts, weights))


def program(layout, in_shapes, out_shapes, lo, hi, filters, antialias, in_dtype, out_dtype,
            src_offsets=None, dst_offsets=None):
    """The `Program` resampling a batch as `_resize_common.resample_samples` does.

    Parameters
    ----------
    layout : str
        The samples' layout (spatial axes D, H, W contiguous in it); "HWC" follows the
        batch engine.
    in_shapes, out_shapes : per sample, the input and output shapes
    lo, hi : per sample, the source region's start and end per spatial axis
    filters : (n, 2) (min_filter, mag_filter) per sample (DALIInterpType codes)
    antialias : bool
    in_dtype, out_dtype : see `check_types`
    src_offsets, dst_offsets : the samples' byte offsets in the input and output buffers
        (None: packed one after another)
    """
    return canonical_program(
        [_resampling.canonical_shape(tuple(s), layout) for s in in_shapes],
        [_resampling.canonical_shape(tuple(s), layout) for s in out_shapes], lo, hi, filters,
        antialias, in_dtype, out_dtype, layout == "HWC", src_offsets, dst_offsets)


def run_plan(ws, plan, antialias):
    """The `run_gpu` of resize, random_resized_crop and resize_crop_mirror: `plan_program` of
    the workspace's device batches, queued on its device."""
    src, dst = ws.input_storage(0), ws.outputs[0]
    run(ws.gpu, plan_program(plan, src.shapes, _resize_common.filter_codes(ws), antialias,
                             src.dtype, dst.dtype, src.offsets, dst.offsets), src, dst)


def plan_program(plan, in_shapes, filters, antialias, in_dtype, out_dtype, src_offsets=None,
                 dst_offsets=None):
    """`program` of a batch as the `infer` of resize, random_resized_crop or
    resize_crop_mirror planned it (`plan.layout`, `plan.geometry`, `plan.bounds`, the output
    shapes), `filters` as `_resize_common.filter_codes` gives them."""
    if plan.bounds is not None:
        lo, hi = plan.bounds
    else:
        lo, hi = [g[0] for g in plan.geometry], [g[1] for g in plan.geometry]
    return program(plan.layout, in_shapes, plan.outputs[0].shapes, lo, hi, filters, antialias,
                   in_dtype, out_dtype, src_offsets, dst_offsets)


def canonical_program(in_shapes, out_shapes, lo, hi, filters, antialias, in_dtype, out_dtype,
                      batch_engine=False, src_offsets=None, dst_offsets=None):
    """`program` of samples given in `_resampling`'s canonical form (planes, D0, ..., Dk-1,
    channels), k = 1..3, resampled by the N-D engine (`_resampling.resample`) or, with
    `batch_engine`, by the HWC batch engine; a sample whose `lo` is None is copied."""
    in_dtype, out_dtype = check_types(in_dtype, out_dtype)
    n = len(in_shapes)
    if n > MAX_SAMPLES:
        raise ValueError(f"a resize launch takes at most {MAX_SAMPLES} samples, not {n}")
    src_offsets = _elements(src_offsets, in_shapes, in_dtype.itemsize)
    dst_offsets = _elements(dst_offsets, out_shapes, out_dtype.itemsize)
    planner = _Planner(batch_engine)
    filters = np.asarray(filters).reshape(n, 2)
    for i, (cin, cout) in enumerate(zip(in_shapes, out_shapes, strict=True)):
        if math.prod(cin) == 0 or math.prod(cout) == 0:
            continue
        if lo[i] is None:
            planner.copy(math.prod(cin), src_offsets[i], dst_offsets[i])
            continue
        if not 1 <= len(cin) - 2 <= 3:
            raise ValueError(f"resize.cu resamples 1 to 3 axes, not {len(cin) - 2}")
        axis_filters = _resampling.region_filters(
            cin[1:-1], cout[1:-1], lo[i], hi[i], int(filters[i, 0]), int(filters[i, 1]),
            bool(antialias))
        planner.sample(tuple(cin), tuple(cout), axis_filters, src_offsets[i], dst_offsets[i])
    return planner.program(in_dtype, out_dtype)


class _Planner:
    """Collects the descriptors of a batch, sample by sample."""

    def __init__(self, batch_engine):
        self.batch_engine = batch_engine
        self.tables = [[], []]          # int32 and float32 arrays, concatenated at the end
        self.sizes = [0, 0]             # their running lengths
        self.tmp = [0, 0]               # running sizes of tmp0 and tmp1
        self.groups = {}                # (round, src, dst) -> descriptor rows

    def _table(self, which, values):
        at = self.sizes[which]
        self.tables[which].append(values)
        self.sizes[which] += values.size
        return at

    def sample(self, cin, cout, filters, src_offset, dst_offset):
        k = len(filters)
        pad = 3 - k                     # leading spatial axes of extent 1
        in_dims = _padded(cin, pad)
        out_dims = _padded(cout, pad)
        order = _resampling.pass_order(cin[1:-1], filters)
        if not order or (not self.batch_engine and all(filters[a].support == 1
                                                        for a in order)):
            self._gather(filters, in_dims, out_dims, pad, src_offset, dst_offset)
            return
        span = _resampling.input_span(filters) if k <= 2 else [(0, e) for e in cin[1:-1]]
        strides = _strides(in_dims)
        dims = list(in_dims)
        for a, (first, last) in enumerate(span):
            dims[1 + pad + a] = last - first
            src_offset += first * strides[1 + pad + a]
        src = "input"
        for p, a in enumerate(order):
            ax = 1 + pad + a
            f = filters[a]
            n_in = dims[ax]
            dims[ax] = len(f.starts)
            inner = math.prod(dims[ax + 1:])
            pixels = inner <= SMALL_INNER and (n_in == 1 or strides[ax] == inner)
            last = p == len(order) - 1
            even_end = inner - inner % SIMD_WIDTH if last and not pixels else 0
            if last:
                dst, offset = "output", dst_offset
            else:
                dst = f"tmp{p % 2}"
                offset = self.tmp[p % 2]
                self.tmp[p % 2] += math.prod(dims)
            starts = self._table(0, (f.starts - np.int32(span[a][0])).astype(np.int32))
            weights = self._table(1, np.ascontiguousarray(f.weights, np.float32).reshape(-1))
            row = [src_offset, offset, math.prod(dims), ax, f.support, starts, weights,
                   int(pixels), inner, even_end, *dims, *strides]
            self.groups.setdefault((p, src, dst), []).append(row)
            src, src_offset, strides = dst, offset, _strides(dims)

    def _gather(self, filters, in_dims, out_dims, pad, src_offset, dst_offset):
        index = []
        for d in range(1, 4):
            a = d - 1 - pad
            if a < 0:
                values = _ZERO
            elif filters[a].identity:
                values = np.arange(in_dims[d], dtype=np.int32)
            else:
                values = filters[a].starts
            index.append(self._table(0, np.asarray(values, np.int32)))
        self._gather_row(src_offset, dst_offset, out_dims, index, _strides(in_dims))

    def copy(self, volume, src_offset, dst_offset):
        """A sample copied whole: a gather of `volume` planes of one value."""
        zero = self._table(0, _ZERO)
        self._gather_row(src_offset, dst_offset, [volume, 1, 1, 1, 1], [zero] * 3,
                         [1, 1, 1, 1, 1])

    def _gather_row(self, src_offset, dst_offset, out_dims, index, strides):
        row = [src_offset, dst_offset, math.prod(out_dims), *index, *out_dims, *strides]
        self.groups.setdefault((-1, "input", "output"), []).append(row)

    def program(self, in_dtype, out_dtype):
        launches = []
        for (p, src, dst), rows in sorted(self.groups.items()):
            src_type = in_dtype if src == "input" else _F32
            dst_type = out_dtype if dst == "output" else _F32
            kind = "gather" if p < 0 else "resample"
            descs = np.array(rows, np.int64).reshape(-1, GATHER_FIELDS if p < 0 else
                                                     PASS_FIELDS)
            volume = int(descs[:, 2].max())
            blocks = int(min(max(-(-volume // BLOCK), 1), MAX_BLOCKS_X))
            launches.append(Launch(f"{kind}_{_CODES[src_type]}_{_CODES[dst_type]}",
                                   (blocks, len(rows), 1), (BLOCK, 1, 1), src, dst, descs))
        starts = np.concatenate(self.tables[0] or [np.zeros(1, np.int32)])
        weights = np.concatenate(self.tables[1] or [np.zeros(1, np.float32)])
        return Program(launches, starts, weights, tuple(self.tmp))


def _padded(canonical, pad):
    """(planes, D0, D1, D2, channels) of a canonical shape with `pad` missing spatial axes."""
    return [canonical[0], *[1] * pad, *canonical[1:]]


def _strides(dims):
    return [math.prod(dims[d + 1:]) for d in range(len(dims))]


def _elements(offsets, shapes, itemsize):
    """The samples' offsets in elements: packed, or the given byte offsets (checked)."""
    if offsets is None:
        volumes = [math.prod(s) for s in shapes]
        return np.concatenate([[0], np.cumsum(volumes, dtype=np.int64)[:-1]]).astype(np.int64)
    offsets = np.asarray(offsets, np.int64)
    if np.any(offsets % itemsize):
        raise ValueError("sample offsets must be multiples of the element size")
    return offsets // itemsize
