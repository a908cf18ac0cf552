"""Resampling of a batch of HWC images: the 2-D engine.

Each sample's source region [lo, hi) (per axis, hi < lo mirrors) is resampled to its whole
output, or to a window of it, with the values of the N-D engine (resample.pyx, driven by
dali/ops/geometry/_resampling.py) bit for bit: the filters, the pass order, the input span read
and the rounding boundary come from the same C (resample_filter.h), and the passes are
resample.pyx's jobs (`dispatch`).  What the N-D engine plans in Python per sample, this one
plans in C per sample on the pool's threads, without the GIL, largest images first: a batch of
small images costs one Python call, not one per sample.  Consecutive samples of the same plan
(sizes, source region, output window and filters: a resize of images of one size) are one work
item, split into items of about `_CHUNK_PIXELS` pixels of work, which builds the filters once
for all its samples (64 images of 8x8 to 4x4: ~75 -> ~25 us of C).
"""
from libc.math cimport fabs
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint16_t
from libc.string cimport memcpy

from dali._ext.kernels.resample cimport (
    SMALL_INNER,
    Job,
    PassDesc,
    array_kind,
    dispatch,
    pass_loop,
)
from dali._ext.kernels.resample_filter cimport (
    dali_rs_even_end,
    dali_rs_filter,
    dali_rs_filter_free,
    dali_rs_input_span,
    dali_rs_make_filter,
    dali_rs_pass_order,
    dali_rs_table,
)
from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cimport numpy as cnp
import numpy as np

cnp.import_array()


cdef enum:
    N_INTERP = 6                 # DALIInterpType values 0 (NN) ... 5


cdef struct Sample2D:
    const char* src              # the input's first pixel
    char* dst                    # the output window's first pixel
    int src_kind, dst_kind
    Py_ssize_t in_size[2]        # input height, width
    Py_ssize_t out_size[2]       # the whole output's height, width (the filters')
    Py_ssize_t win[2][2]         # the output window: rows [win[0][0], win[0][1]), columns
    Py_ssize_t channels
    Py_ssize_t src_rs, dst_rs    # row strides in elements
    Py_ssize_t src_item, dst_item
    double lo[2]
    double hi[2]
    int min_filter, mag_filter
    bint antialias
    Py_ssize_t even_end          # of the last pass: see `resample`
    int rc


cdef struct Plan2D:
    dali_rs_filter f[2]          # the filters, their starts relative to the input span
    int order[2]
    int n_axes
    int64_t span[2][2]           # the input positions read, per axis


cdef struct Batch2D:
    Sample2D* samples
    Py_ssize_t* first            # work item i: the samples first[i] ... first[i + 1] - 1
    dali_rs_table tables[N_INTERP]


cdef void copy_window(const Sample2D* s, const char* src) noexcept nogil:
    """The output window when neither axis is resampled: the input's values (converted to
    float32 for a float output of an integer input, exactly)."""
    cdef Py_ssize_t y, j
    cdef Py_ssize_t n = (s.win[1][1] - s.win[1][0]) * s.channels
    cdef const char* row
    cdef float* out
    for y in range(s.win[0][1] - s.win[0][0]):
        row = src + y * s.src_rs * s.src_item
        if s.src_kind == s.dst_kind:
            memcpy(s.dst + y * s.dst_rs * s.dst_item, row, n * s.src_item)
            continue
        out = <float*>(s.dst + y * s.dst_rs * s.dst_item)
        for j in range(n):
            if s.src_kind == cnp.NPY_UINT8:
                out[j] = (<const uint8_t*>row)[j]
            elif s.src_kind == cnp.NPY_INT16:
                out[j] = (<const int16_t*>row)[j]
            else:
                out[j] = (<const uint16_t*>row)[j]


cdef int plan_2d(const Sample2D* s, const dali_rs_table* tables, Plan2D* p) noexcept nogil:
    """The filters, pass order and input span of a sample of `resample_batch`, as
    `dali.ops.geometry._resampling.resample` and resample.pyx's `resample` make them, planned
    in C; -1 when memory runs out (nothing to free then)."""
    cdef int d, a, interp
    cdef Py_ssize_t i
    cdef int64_t in_sizes[2]
    cdef int64_t out_sizes[2]
    cdef int support[2]
    cdef int identity[2]
    p.f[0].starts = p.f[1].starts = NULL
    p.f[0].weights = p.f[1].weights = NULL
    for d in range(2):
        interp = s.min_filter if fabs(s.hi[d] - s.lo[d]) > <double>s.out_size[d] \
            else s.mag_filter
        if dali_rs_make_filter(&tables[interp], interp == 0, <int>s.in_size[d],
                               <int>s.out_size[d], <float>s.lo[d], <float>s.hi[d],
                               s.antialias, &p.f[d]) != 0:
            free_plan(p)
            return -1
        in_sizes[d], out_sizes[d] = s.in_size[d], s.out_size[d]
        support[d], identity[d] = p.f[d].width, p.f[d].identity
    p.n_axes = dali_rs_pass_order(2, in_sizes, out_sizes, support, identity, p.order)
    for d in range(2):
        dali_rs_input_span(p.f[d].starts, p.f[d].width, p.f[d].identity, s.win[d][0],
                           s.win[d][1], &p.span[d][0], &p.span[d][1])
    for d in range(p.n_axes):       # the windows relative to the input span
        a = p.order[d]
        for i in range(s.win[a][0], s.win[a][1]):
            p.f[a].starts[i] -= <int32_t>p.span[a][0]
    return 0


cdef void free_plan(Plan2D* p) noexcept nogil:
    cdef int d
    for d in range(2):
        dali_rs_filter_free(&p.f[d])


cdef bint same_plan(const Sample2D* a, const Sample2D* b) noexcept nogil:
    """Whether `plan_2d` makes the same plan for samples a and b."""
    cdef int d
    for d in range(2):
        if a.in_size[d] != b.in_size[d] or a.out_size[d] != b.out_size[d] or \
                a.lo[d] != b.lo[d] or a.hi[d] != b.hi[d] or \
                a.win[d][0] != b.win[d][0] or a.win[d][1] != b.win[d][1]:
            return False
    return a.min_filter == b.min_filter and a.mag_filter == b.mag_filter and \
        a.antialias == b.antialias


cdef int resample_2d(const Sample2D* s, Plan2D* p) noexcept nogil:
    """One sample of `resample_batch` by its plan; -1 when memory runs out."""
    cdef const char* src = s.src + (p.span[0][0] * s.src_rs + p.span[1][0] * s.channels) \
        * s.src_item
    if p.n_axes == 0:
        copy_window(s, src)
        return 0
    return run_2d(s, src, p.f, p.order, p.n_axes, p.span)


cdef int run_2d(const Sample2D* s, const char* src, dali_rs_filter* f, const int* order,
                int n_axes, const int64_t[2][2] span) noexcept nogil:
    """The passes of `resample_2d` (the same job `resample` builds), run."""
    cdef Job job
    cdef PassDesc* d
    cdef int p, a, ax
    cdef Py_ssize_t dims[4]
    cdef Py_ssize_t in_dims[4]
    cdef Py_ssize_t in_st[4]
    cdef Py_ssize_t out_st[4]
    cdef Py_ssize_t lo, hi, inner, size
    dims[0], dims[1], dims[2], dims[3] = 1, span[0][1] - span[0][0], \
        span[1][1] - span[1][0], s.channels
    in_st[0], in_st[1], in_st[2], in_st[3] = 0, s.src_rs, s.channels, 1
    job.n_passes = n_axes
    job.tmp_size = 0
    job.acc_size = 1
    for p in range(n_axes):
        a = order[p]
        ax = a + 1
        d = &job.passes[p]
        lo, hi = s.win[a][0], s.win[a][1]
        in_dims[0], in_dims[1], in_dims[2], in_dims[3] = dims[0], dims[1], dims[2], dims[3]
        inner = dims[3] if ax == 2 else dims[2] * dims[3]
        d.n_in = dims[ax]
        d.n_out = hi - lo
        d.inner = inner
        d.support = f[a].width
        d.starts = f[a].starts + lo
        d.weights = f[a].weights + lo * f[a].width
        dims[ax] = hi - lo
        if p == n_axes - 1:
            out_st[0], out_st[1], out_st[2], out_st[3] = 0, s.dst_rs, s.channels, 1
        else:
            out_st[0], out_st[1], out_st[2], out_st[3] = 0, dims[2] * dims[3], dims[3], 1
            size = dims[1] * dims[2] * dims[3]
            if size > job.tmp_size:
                job.tmp_size = size
        pass_loop(&job, p, inner <= SMALL_INNER and (in_dims[ax] == 1 or in_st[ax] == inner)
                  and (dims[ax] == 1 or out_st[ax] == inner),
                  s.even_end if a == 0 else -1)
        # resample.pyx's `_pass_layout`: only the rows (before the columns, when more than
        # one) fold outside
        d.outer0 = 1
        d.in_s0 = d.out_s0 = 0
        if ax == 2 and in_dims[1] > 1:
            d.outer1, d.in_s1, d.out_s1 = in_dims[1], in_st[1], out_st[1]
        else:
            d.outer1, d.in_s1, d.out_s1 = 1, 0, 0
        d.in_sn, d.out_sn = in_st[ax], out_st[ax]
        in_st[0], in_st[1], in_st[2], in_st[3] = 0, dims[2] * dims[3], dims[3], 1
    return dispatch(src, s.src_kind, s.dst, s.dst_kind, &job)


cdef void _batch_item(void* ctx, int64_t i) noexcept nogil:
    """The samples of work item i, the plan made once for all of them (they share it)."""
    cdef Batch2D* b = <Batch2D*>ctx
    cdef Sample2D* s
    cdef Plan2D plan
    cdef Py_ssize_t j
    cdef bint planned = False
    for j in range(b.first[i], b.first[i + 1]):
        s = b.samples + j
        s.rc = 0
        if s.in_size[0] == 0 or s.in_size[1] == 0 or s.channels == 0 or \
                s.win[0][1] <= s.win[0][0] or s.win[1][1] <= s.win[1][0]:
            continue
        if not planned:
            s.rc = plan_2d(s, b.tables, &plan)
            if s.rc != 0:
                continue
            planned = True
        s.rc = resample_2d(s, &plan)
    if planned:
        free_plan(&plan)


cdef double _NS_PER_PIXEL = 1.3     # measured: ~200 us for a 300x300 -> 224x224 RGB image
# Samples of one plan are grouped into work items of about this many pixels (input and output)
cdef Py_ssize_t _CHUNK_PIXELS = 4096


cdef Py_ssize_t _work_items(Batch2D* b, Py_ssize_t n, int64_t[::1] sizes) noexcept:
    """Cut the samples into work items (`b.first`, their costs in `sizes`): each run of
    consecutive samples of one plan (`same_plan`) into items of about `_CHUNK_PIXELS` pixels
    (one sample at least); returns the number of items."""
    cdef Py_ssize_t i = 0, j, k, parts, m = 0
    cdef int64_t cost
    cdef const Sample2D* s
    while i < n:
        s = b.samples + i
        j = i + 1
        while j < n and same_plan(b.samples + j, s):
            j += 1
        cost = s.in_size[0] * s.in_size[1] + \
            (s.win[0][1] - s.win[0][0]) * (s.win[1][1] - s.win[1][0])
        parts = min(j - i, max(1, cost * (j - i) // _CHUNK_PIXELS))
        for k in range(parts):
            b.first[m] = i + (j - i) * k // parts
            sizes[m] = cost * (i + (j - i) * (k + 1) // parts - b.first[m])
            m += 1
        i = j
    b.first[m] = n
    return m


cdef inline bint _pixels_contiguous(cnp.ndarray a) except -1:
    """Whether the pixels of an (H, W, C) array are contiguous (rows may be apart, forwards,
    a whole number of elements apart)."""
    cdef Py_ssize_t item = a.itemsize
    return not ((a.shape[2] > 1 and a.strides[2] != item)
                or (a.shape[1] > 1 and a.strides[1] != item * a.shape[2])
                or a.strides[0] < 0 or a.strides[0] % item)


cdef struct Side:
    const char** data            # per sample: the first pixel
    int64_t* shape               # (n, 3): height, width, channels
    int64_t* row                 # row strides in elements
    int* kind
    Py_ssize_t* item
    bint* contiguous             # the pixels contiguous (see _pixels_contiguous)


cdef Side _side(samples, Py_ssize_t n, str what, bint out, list keep):
    """Where the samples `samples` (a list of (H, W, C) arrays or a BatchStorage, contiguous
    for an output) are and what they hold; the shapes checked to be 3-D."""
    cdef Side side
    cdef BatchStorage st
    cdef cnp.ndarray a
    cdef const int64_t[:, ::1] shapes
    cdef Py_ssize_t i, d
    cdef int kind
    side.shape = <int64_t*>job_array(3 * n, sizeof(int64_t), keep)
    side.row = <int64_t*>job_array(n, sizeof(int64_t), keep)
    side.kind = <int*>job_array(n, sizeof(int), keep)
    side.item = <Py_ssize_t*>job_array(n, sizeof(Py_ssize_t), keep)
    side.contiguous = <bint*>job_array(n, sizeof(bint), keep)
    if isinstance(samples, BatchStorage):
        st = <BatchStorage>samples
        if st.num_samples != n:
            raise ValueError("every argument must describe the same number of samples")
        if out and not st.is_contiguous:
            raise ValueError("an output batch must be contiguous storage")
        if n and st.ndim != 3:
            raise ValueError("sample 0: src and dst must be (H, W, C) with the same C")
        kind = array_kind(np.empty(0, st.dtype), what)
        side.data = sample_data(st, keep)
        shapes = np.ascontiguousarray(st.shapes, np.int64).reshape(n, 3)
        for i in range(n):
            for d in range(3):
                side.shape[3 * i + d] = shapes[i, d]
            side.row[i] = shapes[i, 1] * shapes[i, 2]
            side.kind[i], side.item[i], side.contiguous[i] = kind, st.dtype.itemsize, True
        return side
    if len(samples) != n:
        raise ValueError("every argument must describe the same number of samples")
    side.data = <const char**>job_array(n, sizeof(char*), keep)
    for i in range(n):
        a = samples[i]
        side.kind[i] = array_kind(a, what)
        if a.ndim != 3:
            raise ValueError(f"sample {i}: src and dst must be (H, W, C) with the same C")
        for d in range(3):
            side.shape[3 * i + d] = a.shape[d]
        side.item[i] = a.itemsize
        side.row[i] = a.strides[0] // a.itemsize
        side.contiguous[i] = _pixels_contiguous(a)
        side.data[i] = <const char*>cnp.PyArray_DATA(a)
    return side


def resample_batch(ThreadPool pool, srcs, dsts, list windows,
                   const double[:, ::1] lo, const double[:, ::1] hi,
                   const int32_t[:, ::1] filters, bint antialias, list tables):
    """Resample a batch of HWC images, as `dali.ops._resampling.resample` does each (the
    same values), on `pool` (or the caller when None) without the GIL, largest first: each
    sample's filters, pass order and buffers are made on the thread that resamples it.

    Parameters
    ----------
    srcs : list of ndarray (H, W, C), or BatchStorage
        uint8, int16, uint16 or float32; pixels contiguous (rows may be apart).  A batch is
        read where its samples are (`sample_data`).
    dsts : list of ndarray (h, w, C), or contiguous BatchStorage
        The whole outputs (the filters map each input to them): the input type or float32,
        pixels contiguous.
    windows : list of ((y0, y1), (x0, x1)) or None, or None
        The part of each output to compute (the rest is not written); None: all of it.
    lo, hi : float64 (n, 2)
        The source region per axis (hi < lo mirrors).
    filters : int32 (n, 2)
        min_filter and mag_filter (DALIInterpType) per sample.
    tables : list of (float32 table, radius) or None
        The kernel of each DALIInterpType value (resample.pyx `axis_filter`'s `table`); None
        for NN.
    """
    cdef Py_ssize_t n = lo.shape[0], i, d
    cdef int f
    cdef Batch2D batch
    cdef Sample2D* s
    cdef const float[::1] tv
    cdef const int64_t* ss
    cdef const int64_t* ds
    if (windows is not None and len(windows) != n) or hi.shape[0] != n or \
            filters.shape[0] != n:
        raise ValueError("every argument must describe the same number of samples")
    if len(tables) != N_INTERP:
        raise ValueError(f"tables must have {N_INTERP} entries")
    keep = []
    cdef Side src = _side(srcs, n, "input", False, keep)
    cdef Side dst = _side(dsts, n, "output", True, keep)
    for k in range(N_INTERP):
        if tables[k] is None:
            batch.tables[k].data = NULL
            batch.tables[k].samples = 0
            continue
        tv = tables[k][0]
        keep.append(tv)
        if tv.shape[0] < 4:
            raise ValueError("a kernel table needs at least two samples and two zeros")
        batch.tables[k].data = &tv[0]
        batch.tables[k].samples = tv.shape[0] - 2
        batch.tables[k].radius = tables[k][1]
    batch.samples = <Sample2D*>job_array(n, sizeof(Sample2D), keep)
    for i in range(n):
        s = batch.samples + i
        ss, ds = src.shape + 3 * i, dst.shape + 3 * i
        s.src_kind, s.dst_kind = src.kind[i], dst.kind[i]
        if ss[2] != ds[2]:
            raise ValueError(f"sample {i}: src and dst must be (H, W, C) with the same C")
        if s.dst_kind != s.src_kind and s.dst_kind != cnp.NPY_FLOAT32:
            raise ValueError(f"sample {i}: the output must have the input type or float")
        w = windows[i] if windows is not None else None
        for d in range(2):
            if w is None:
                s.win[d][0], s.win[d][1] = 0, ds[d]
            else:
                s.win[d][0], s.win[d][1] = w[d]
            if not 0 <= s.win[d][0] <= s.win[d][1] <= ds[d]:
                raise ValueError(f"sample {i}: the window does not match dst")
        s.channels = ss[2]
        if ss[0] * ss[1] * ss[2] == 0 or ds[0] * ds[1] * ds[2] == 0:
            s.channels = 0                      # nothing to compute (see _batch_item)
            continue
        s.src_item, s.dst_item = src.item[i], dst.item[i]
        if not (src.contiguous[i] and dst.contiguous[i]):
            raise ValueError(f"sample {i}: the pixels must be contiguous")
        s.src_rs, s.dst_rs = src.row[i], dst.row[i]
        for d in range(2):
            s.in_size[d] = ss[d]
            s.out_size[d] = ds[d]
            s.lo[d], s.hi[d] = lo[i, d], hi[i, d]
            if s.out_size[d] > 0x7fffffff or s.in_size[d] > 0x7fffffff:
                raise ValueError(f"sample {i}: unsupported extents")
        s.min_filter, s.mag_filter = filters[i, 0], filters[i, 1]
        for d in range(2):
            f = s.min_filter if d == 0 else s.mag_filter
            if not 0 <= f < N_INTERP or (f != 0 and batch.tables[f].data == NULL):
                raise ValueError(f"sample {i}: no kernel for filter {f}")
        s.antialias = antialias
        s.even_end = dali_rs_even_end(s.out_size[1], s.channels, s.win[1][0], s.win[1][1])
        s.src = src.data[i]
        s.dst = <char*>dst.data[i] + \
            (s.win[0][0] * s.dst_rs + s.win[1][0] * s.channels) * s.dst_item
    batch.first = <Py_ssize_t*>job_array(n + 1, sizeof(Py_ssize_t), keep)
    sizes = np.empty(n, np.int64)
    run_largest_first(pool, _batch_item, &batch, sizes[:_work_items(&batch, n, sizes)],
                      _NS_PER_PIXEL)
    for i in range(n):
        if batch.samples[i].rc != 0:
            raise MemoryError("cannot allocate the resampling buffers")
