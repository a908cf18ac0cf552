"""Separable resampling of images and volumes: one 1-D filter pass per resized axis.

A sample is viewed as (planes, D0, ..., Dk-1, channels): `planes` gathers the outer
non-spatial dimensions (frames, planar channels), `channels` the interleaved ones.  A pass
resamples one spatial axis; seen from that axis the data is (outer, n, inner) with `inner`
contiguous values per position (a whole row for the vertical pass, the channels for the
horizontal one).  Output position i of a pass is

    out[o, i, :] = sum_k weights[i, k] * in[o, starts[i] + k, :]

where the caller (dali/ops/_resampling.py) has already folded the taps that fall outside the
input onto the edge pixels, so every window lies inside the input (checked) and no index is
clamped here.  The input of the first pass and the output of the last may be windows of larger
arrays (rows a stride apart), so that a region of interest is read, and a window of the output
written, without copies.

Accumulation is in float32, each output summing its taps in order (as DALI does); intermediate
passes write float32 buffers; the last pass converts to the output type (integers saturate and
round half away from zero, except where DALI's vectorized vertical pass rounds half to even,
see `store_row`).  A pass with a large `inner` sums whole rows, 16 values at a time over all
taps; one with a few channels widens each input row to 4 floats per position and computes
four outputs at once with vector extensions (resample_kernels.h).  Nearest neighbour along
every axis is a plain gather (`nearest`).  A whole sample runs without the GIL, so samples can
be resampled in parallel on a thread pool; arguments are validated by the Python caller.

This is the N-D engine (any layout, sample by sample, planned in Python by
dali/ops/geometry/_resampling.py); resample_batch.pyx plans the same jobs for a batch of HWC
images without the GIL and runs them here (`dispatch`, resample.pxd).  Both take their filters,
pass order, input spans and rounding boundaries from resample_filter.h, whose plan functions
are exposed to Python below (`pass_order`, `input_span`, `even_end`).
"""
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint16_t
from libc.stdlib cimport free, malloc

from dali._ext.kernels.resample_filter cimport (
    DALI_RS_MAX_AXES,
    DALI_RS_SIMD_WIDTH,
    dali_rs_even_end,
    dali_rs_filter_fold,
    dali_rs_filter_identity,
    dali_rs_filter_nn,
    dali_rs_filter_shape,
    dali_rs_filter_taps,
    dali_rs_input_span,
    dali_rs_pass_order,
)

cimport numpy as cnp
import numpy as np

cnp.import_array()
dali_rs_detect()

cdef extern from "resample_kernels.h":
    void dali_rs_row4(const float* row, float* out, const int32_t* starts,
                      const float* weights, Py_ssize_t n_out, int support,
                      Py_ssize_t stride, Py_ssize_t step) noexcept nogil
    int dali_rs_avx2
    void dali_rs_detect() noexcept nogil
    void dali_rs_widen3_u8(const uint8_t* s, float* row, Py_ssize_t n) noexcept nogil
    void dali_rs_row3_u8(const uint8_t* s, Py_ssize_t n_in, float* out, const int32_t* starts,
                         const float* weights, Py_ssize_t n_out, int support) noexcept nogil
    void dali_rs_rows_u8(const uint8_t* src, Py_ssize_t stride, const float* w, int support,
                         float* out, Py_ssize_t n) noexcept nogil
    void dali_rs_rows_f32(const float* src, Py_ssize_t stride, const float* w, int support,
                          float* out, Py_ssize_t n) noexcept nogil
    void dali_rs_row1(const float* row, float* out, const int32_t* starts,
                      const float* weights, Py_ssize_t n_out, int support) noexcept nogil
    void dali_rs_to_u8(uint8_t* out, const float* a, Py_ssize_t n,
                       Py_ssize_t even_end) noexcept nogil
    void dali_rs_to_u16(uint16_t* out, const float* a, Py_ssize_t n,
                        Py_ssize_t even_end) noexcept nogil
    void dali_rs_to_i16(int16_t* out, const float* a, Py_ssize_t n,
                        Py_ssize_t even_end) noexcept nogil

ctypedef fused src_t:
    uint8_t
    int16_t
    uint16_t
    float

ctypedef fused dst_t:
    uint8_t
    int16_t
    uint16_t
    float

cdef inline void store_row(dst_t* out, const float* a, Py_ssize_t n,
                           Py_ssize_t even_end) noexcept nogil:
    """Convert n accumulated values to the output type.

    Integers saturate and round half away from zero, except the first `even_end` values,
    which round half to even: DALI's vectorized vertical pass does so for whole vectors of
    DALI_RS_SIMD_WIDTH values and rounds the rest of the row half away from zero.
    """
    cdef Py_ssize_t j
    if dst_t is float:
        for j in range(n):
            out[j] = a[j]
    elif dst_t is uint8_t:
        dali_rs_to_u8(out, a, n, even_end)
    elif dst_t is uint16_t:
        dali_rs_to_u16(out, a, n, even_end)
    else:
        dali_rs_to_i16(out, a, n, even_end)


cdef void pass_rows(const src_t* src, dst_t* dst, const PassDesc* d, float* acc) noexcept nogil:
    """A pass along an outer axis: each output row is a weighted sum of whole input rows."""
    cdef Py_ssize_t o0, o1, i, j, k
    cdef Py_ssize_t inner = d.inner
    cdef const src_t* s
    cdef const src_t* row
    cdef dst_t* out
    cdef float* a
    cdef const float* wt
    cdef float w
    for o0 in range(d.outer0):
        for o1 in range(d.outer1):
            s = src + o0 * d.in_s0 + o1 * d.in_s1
            for i in range(d.n_out):
                out = dst + o0 * d.out_s0 + o1 * d.out_s1 + i * d.out_sn
                if dst_t is float:
                    a = out
                else:
                    a = acc
                wt = d.weights + i * d.support
                row = s + d.starts[i] * d.in_sn
                if src_t is uint8_t:
                    dali_rs_rows_u8(row, d.in_sn, wt, d.support, a, inner)
                elif src_t is float:
                    dali_rs_rows_f32(row, d.in_sn, wt, d.support, a, inner)
                else:
                    w = wt[0]
                    for j in range(inner):
                        a[j] = w * row[j]
                    for k in range(1, d.support):
                        row = row + d.in_sn
                        w = wt[k]
                        for j in range(inner):
                            a[j] += w * row[j]
                if dst_t is not float:
                    store_row(out, a, inner, d.even_end)


cdef void pass_pixels(const src_t* src, dst_t* dst, const PassDesc* d, float* acc,
                      float* row, bint direct) noexcept nogil:
    """A pass along the innermost spatial axis, with a few interleaved values per position
    (contiguous positions: in_sn == out_sn == inner).

    Each input row is first converted to floats (widened to 4 per position when there are 2 to
    4, so one position is one vector), resampled by resample_kernels.h's loops into `acc`, then
    converted to the output type.  Rows of uint8 RGB with fewer taps than twice their positions
    are not: each tap is widened where it is read (the same values).  With `direct` (the output
    is an intermediate buffer, see run_passes: contiguous rows written in order, room for a
    value past its end), rows of 3 or 4 values per position are resampled straight into it.
    """
    cdef Py_ssize_t o0, o1, i, k, c
    cdef Py_ssize_t inner = d.inner
    cdef Py_ssize_t n_in = d.n_in
    cdef Py_ssize_t n_out = d.n_out
    cdef Py_ssize_t support = d.support
    cdef const src_t* s
    cdef const float* wt = d.weights
    cdef dst_t* out
    cdef float* a
    cdef float w
    for o0 in range(d.outer0):
        for o1 in range(d.outer1):
            s = src + o0 * d.in_s0 + o1 * d.in_s1
            out = dst + o0 * d.out_s0 + o1 * d.out_s1
            if 2 <= inner <= 4:
                a = acc
                if dst_t is float:
                    if direct and inner >= 3:
                        a = out
                if src_t is float and inner == 3 and d.padded:
                    dali_rs_row4(s, a, d.starts, wt, n_out, support, inner, 3)
                elif src_t is uint8_t and inner == 3 and n_out * support <= 2 * n_in:
                    dali_rs_row3_u8(s, n_in, a, d.starts, wt, n_out, support)
                else:
                    if src_t is uint8_t and inner == 3:
                        dali_rs_widen3_u8(s, row, n_in)
                    elif inner == 3:
                        for i in range(n_in):
                            row[4 * i] = s[3 * i]
                            row[4 * i + 1] = s[3 * i + 1]
                            row[4 * i + 2] = s[3 * i + 2]
                            row[4 * i + 3] = 0
                    else:
                        for i in range(n_in):
                            for c in range(4):
                                row[4 * i + c] = s[i * inner + c] if c < inner else 0
                    dali_rs_row4(row, a, d.starts, wt, n_out, support, inner, 4)
                if a == acc:
                    store_row(out, acc, n_out * inner, 0)
            elif inner == 1:
                if src_t is float:
                    dali_rs_row1(s, acc, d.starts, wt, n_out, support)
                else:
                    for i in range(n_in):
                        row[i] = s[i]
                    dali_rs_row1(row, acc, d.starts, wt, n_out, support)
                store_row(out, acc, n_out, 0)
            else:
                for i in range(n_out * inner):
                    acc[i] = 0
                for i in range(n_out):
                    for k in range(support):
                        w = wt[i * support + k]
                        for c in range(inner):
                            acc[i * inner + c] += w * s[(d.starts[i] + k) * inner + c]
                store_row(out, acc, n_out * inner, 0)


cdef void run_pass(const src_t* src, dst_t* dst, const PassDesc* d, float* acc,
                   bint direct=False) noexcept nogil:
    if d.pixels:
        pass_pixels(src, dst, d, acc, acc + d.row_offset, direct)
    else:
        pass_rows(src, dst, d, acc)


cdef int run_passes(const src_t* src, dst_t* dst, const Job* job) noexcept nogil:
    """All passes of one sample; returns -1 when a buffer cannot be allocated."""
    cdef float* tmp[2]
    cdef float* acc = NULL
    cdef int p
    cdef int n = job.n_passes
    tmp[0] = tmp[1] = NULL
    if n > 1:
        tmp[0] = <float*>malloc((job.tmp_size + 1) * sizeof(float))    # + 1: `padded`
        if tmp[0] != NULL:
            tmp[0][job.tmp_size] = 0
        if n > 2:
            tmp[1] = <float*>malloc((job.tmp_size + 1) * sizeof(float))
            if tmp[1] != NULL:
                tmp[1][job.tmp_size] = 0
    acc = <float*>malloc(job.acc_size * sizeof(float) + 1)
    if acc == NULL or (n > 1 and tmp[0] == NULL) or (n > 2 and tmp[1] == NULL):
        free(tmp[0])
        free(tmp[1])
        free(acc)
        return -1
    if n == 1:
        run_pass(src, dst, &job.passes[0], acc)
    else:
        run_pass(src, tmp[0], &job.passes[0], acc, True)
        for p in range(1, n - 1):
            run_pass(<const float*>tmp[(p - 1) % 2], tmp[p % 2], &job.passes[p], acc, True)
        run_pass(<const float*>tmp[(n - 2) % 2], dst, &job.passes[n - 1], acc)
    free(tmp[0])
    free(tmp[1])
    free(acc)
    return 0


cdef void gather(const src_t* src, dst_t* dst, const Job* job) noexcept nogil:
    """Nearest neighbour: out[p, i, j, k, :] = in[p, idx0[i], idx1[j], idx2[k], :]."""
    cdef Py_ssize_t p, i, j, k, c
    cdef Py_ssize_t ch = job.channels
    cdef Py_ssize_t stride2 = ch
    cdef Py_ssize_t stride1 = job.nn_in[2] * stride2
    cdef Py_ssize_t stride0 = job.nn_in[1] * stride1
    cdef Py_ssize_t plane = job.nn_in[0] * stride0
    cdef const int32_t* idx0 = job.nn_index[0]
    cdef const int32_t* idx1 = job.nn_index[1]
    cdef const int32_t* idx2 = job.nn_index[2]
    cdef const src_t* s0
    cdef const src_t* s1
    cdef const src_t* s2
    for p in range(job.planes):
        for i in range(job.nn_out[0]):
            s0 = src + p * plane + idx0[i] * stride0
            for j in range(job.nn_out[1]):
                s1 = s0 + idx1[j] * stride1
                if ch == 3:
                    for k in range(job.nn_out[2]):
                        s2 = s1 + idx2[k] * 3
                        dst[0] = <dst_t>s2[0]
                        dst[1] = <dst_t>s2[1]
                        dst[2] = <dst_t>s2[2]
                        dst += 3
                else:
                    for k in range(job.nn_out[2]):
                        s2 = s1 + idx2[k] * stride2
                        for c in range(ch):
                            dst[c] = <dst_t>s2[c]
                        dst += ch


cdef int run_job(const src_t* src, dst_t* dst, const Job* job) noexcept nogil:
    if job.n_passes == 0:
        gather(src, dst, job)
        return 0
    return run_passes(src, dst, job)


cdef int dispatch_dst(const src_t* src, char* dst, int kind, const Job* job) noexcept nogil:
    if kind == cnp.NPY_UINT8:
        return run_job(src, <uint8_t*>dst, job)
    if kind == cnp.NPY_INT16:
        return run_job(src, <int16_t*>dst, job)
    if kind == cnp.NPY_UINT16:
        return run_job(src, <uint16_t*>dst, job)
    return run_job(src, <float*>dst, job)


cdef int dispatch(const char* src, int src_kind, char* dst, int dst_kind,
                  const Job* job) noexcept nogil:
    if src_kind == cnp.NPY_UINT8:
        return dispatch_dst(<const uint8_t*>src, dst, dst_kind, job)
    if src_kind == cnp.NPY_INT16:
        return dispatch_dst(<const int16_t*>src, dst, dst_kind, job)
    if src_kind == cnp.NPY_UINT16:
        return dispatch_dst(<const uint16_t*>src, dst, dst_kind, job)
    return dispatch_dst(<const float*>src, dst, dst_kind, job)


_KINDS = {np.dtype(np.uint8): cnp.NPY_UINT8, np.dtype(np.int16): cnp.NPY_INT16,
          np.dtype(np.uint16): cnp.NPY_UINT16, np.dtype(np.float32): cnp.NPY_FLOAT32}


cdef int array_kind(object a, str what) except -1:
    """The NPY type number of the numpy array `a` (a supported sample type), else TypeError."""
    cdef int t
    if cnp.PyArray_Check(a) and cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>a):
        # The usual case without hashing the dtype (the types of `_KINDS`, native order).
        t = cnp.PyArray_TYPE(<cnp.ndarray>a)
        if t == cnp.NPY_UINT8 or t == cnp.NPY_INT16 or t == cnp.NPY_UINT16 or \
                t == cnp.NPY_FLOAT32:
            return t
    kind = _KINDS.get(a.dtype)
    if kind is None:
        raise TypeError(f"unsupported {what} type {a.dtype}")
    return kind


cdef run(cnp.ndarray src, cnp.ndarray dst, const Job* job):
    """Run the job on the buffers (the GIL is released while it runs)."""
    cdef int sk = array_kind(src, "input"), dk = array_kind(dst, "output")
    cdef int rc
    if src.size == 0 or dst.size == 0:
        return
    cdef const char* sp = <const char*>cnp.PyArray_DATA(src)
    cdef char* dp = <char*>cnp.PyArray_DATA(dst)
    with nogil:
        rc = dispatch(sp, sk, dp, dk, job)
    if rc != 0:
        raise MemoryError("cannot allocate the resampling buffers")


cdef bint _inside(const int32_t* starts, Py_ssize_t n, Py_ssize_t support,
                  Py_ssize_t n_in) noexcept:
    """Whether every window starts[i] ... starts[i] + support - 1 lies in [0, n_in)."""
    cdef Py_ssize_t i
    for i in range(n):
        if starts[i] < 0 or starts[i] + support > n_in:
            return False
    return True


def _element_strides(a):
    """Strides of `a` in elements (non-negative multiples of the item size)."""
    out = []
    for st in a.strides:
        if st < 0 or st % a.itemsize:
            raise ValueError("strides must be non-negative multiples of the item size")
        out.append(st // a.itemsize)
    return out


def _contiguous_strides(dims):
    out = [1] * len(dims)
    for d in range(len(dims) - 2, -1, -1):
        out[d] = out[d + 1] * dims[d + 1]
    return out


def _positions_contiguous(dims, strides, int ax, Py_ssize_t inner):
    return dims[ax] == 1 or strides[ax] == inner


def _pass_layout(in_dims, in_strides, out_dims, out_strides, int ax):
    """How a pass along axis `ax` sees its input and output (element `strides`; the two
    differ only in the extent of `ax`): (outer0, outer1, in_s0, in_s1, in_sn, out_s0, out_s1,
    out_sn).  Raises ValueError when the values after `ax` are not one contiguous block per
    position, or the axes before it cannot be folded into two strided levels."""
    for dims, strides in ((in_dims, in_strides), (out_dims, out_strides)):
        block = 1
        for d in range(len(dims) - 1, ax, -1):
            if dims[d] > 1 and strides[d] != block:
                raise ValueError("the values after the resampled axis must be contiguous")
            block *= dims[d]
    levels = []                  # [count, input stride, output stride], outermost first
    for d in range(ax):
        if in_dims[d] == 1:
            continue
        top = len(levels) - 1
        if top >= 0 and levels[top][1] == in_dims[d] * in_strides[d] and \
                levels[top][2] == in_dims[d] * out_strides[d]:
            levels[top] = [levels[top][0] * in_dims[d], in_strides[d], out_strides[d]]
        else:
            levels.append([in_dims[d], in_strides[d], out_strides[d]])
    if len(levels) > 2:
        raise ValueError("at most two strided outer levels are supported")
    while len(levels) < 2:
        levels.insert(0, [1, 0, 0])
    return (levels[0][0], levels[1][0], levels[0][1], levels[1][1], in_strides[ax],
            levels[0][2], levels[1][2], out_strides[ax])


cdef void pass_loop(Job* job, int p, bint pixels, Py_ssize_t even_end) noexcept nogil:
    """Pass p's loop (the pixel loop or the row loop), rounding boundary and scratch space, its
    n_in, n_out and inner being set: the last pass along rows rounds half to even up to
    `even_end` (-1: DALI's whole SIMD_WIDTH vectors of the row); `acc_size` grows to what the
    pass needs."""
    cdef PassDesc* d = &job.passes[p]
    cdef Py_ssize_t row, width = d.inner if d.inner > 4 else 4
    d.pixels = pixels
    d.padded = p > 0                 # reads an intermediate buffer
    d.even_end = 0
    if p == job.n_passes - 1 and not pixels:
        d.even_end = d.inner - d.inner % DALI_RS_SIMD_WIDTH if even_end < 0 else even_end
    if pixels:
        d.row_offset = width * d.n_out
        row = d.row_offset + width * d.n_in
    else:
        row = d.inner
    if row > job.acc_size:
        job.acc_size = row


def resample(src, dst, list passes, Py_ssize_t even_end=-1):
    """Resample `src` into `dst` with the given 1-D passes, in order.

    Parameters
    ----------
    src, dst : ndarray
        uint8, int16, uint16 or float32 (any combination), shaped (planes, D0, ..., Dk-1,
        channels).  Views are accepted where, for every pass, the values after the pass's axis
        form one contiguous block per position (the positions themselves contiguous for a
        pass along the innermost spatial axis with at most 8 values per position), and the
        axes before it fold into two strided levels: e.g. a window of an image (rows apart).
    passes : list of (axis, starts, weights)
        `axis` indexes D0..Dk-1; `starts` (int32, one per output position) and `weights`
        (float32, output positions x support) as described in the module docstring.  `dst`
        must have the shape obtained by setting each pass's axis to len(starts).
    even_end : int
        For integer outputs of a last pass along an outer axis: the values of each output row
        before this index round half to even, the others half away from zero (-1: DALI's
        whole SIMD_WIDTH vectors of the row).
    """
    cdef Job job
    cdef const int32_t[::1] st
    cdef const float[:, ::1] wt
    cdef int n = len(passes)
    cdef int p, ax
    cdef Py_ssize_t size
    cdef list dims = list(src.shape)
    cdef int nd = len(dims)
    if not (isinstance(src, np.ndarray) and isinstance(dst, np.ndarray)):
        raise TypeError("src and dst must be numpy arrays")
    if n < 1 or n > MAX_PASSES:
        raise ValueError(f"between 1 and {MAX_PASSES} passes are supported, got {n}")
    if nd < 3 or dst.ndim != nd:
        raise ValueError("src and dst must be shaped (planes, D0, ..., channels)")
    job.n_passes = n
    job.tmp_size = 0
    job.acc_size = 1
    keep = []
    in_strides = _element_strides(src)
    dst_strides = _element_strides(dst)
    for p in range(n):
        axis, starts, weights = passes[p]
        st = starts
        wt = weights
        keep.append((st, wt))
        ax = axis + 1
        if not 1 <= ax < nd - 1:
            raise ValueError(f"pass axis {axis} out of range")
        if wt.shape[0] != st.shape[0]:
            raise ValueError("starts and weights must have one row per output position")
        inner = 1
        for a in range(ax + 1, nd):
            inner *= dims[a]
        in_dims = list(dims)
        job.passes[p].n_in = dims[ax]
        job.passes[p].n_out = st.shape[0]
        job.passes[p].inner = inner
        job.passes[p].support = wt.shape[1]
        job.passes[p].starts = &st[0] if st.shape[0] else NULL
        job.passes[p].weights = &wt[0, 0] if wt.shape[0] else NULL
        if not _inside(&st[0] if st.shape[0] else NULL, st.shape[0], wt.shape[1], dims[ax]):
            raise ValueError(f"pass {p}: a filter window lies outside the input")
        dims[ax] = st.shape[0]
        if p == n - 1:
            if list(dst.shape) != dims:
                raise ValueError(f"dst has shape {tuple(dst.shape)}, the resampling produces "
                                 f"{tuple(dims)}")
            out_strides = dst_strides
        else:
            out_strides = _contiguous_strides(dims)
            size = 1
            for a in dims:
                size *= a
            if size > job.tmp_size:
                job.tmp_size = size
        # A few values per position, positions contiguous: the pixel loop, else the row loop.
        pass_loop(&job, p, inner <= SMALL_INNER
                  and _positions_contiguous(in_dims, in_strides, ax, inner)
                  and _positions_contiguous(dims, out_strides, ax, inner), even_end)
        (job.passes[p].outer0, job.passes[p].outer1, job.passes[p].in_s0,
         job.passes[p].in_s1, job.passes[p].in_sn, job.passes[p].out_s0, job.passes[p].out_s1,
         job.passes[p].out_sn) = _pass_layout(in_dims, in_strides, dims, out_strides, ax)
        in_strides = _contiguous_strides(dims)
    run(src, dst, &job)


def avx2(on=None):
    """Whether the row loops take their AVX2 path (found at import: the CPU has AVX2); `on`
    switches it (off, or on where the CPU has it), so tests can compare both paths."""
    global dali_rs_avx2
    if on is not None:
        dali_rs_detect()
        dali_rs_avx2 = dali_rs_avx2 and bool(on)
    return bool(dali_rs_avx2)


_ZERO = np.zeros(1, np.int32)


def nearest(src, dst, list indices):
    """Nearest-neighbour resampling: `dst[p, i, j, ...] = src[p, idx0[i], idx1[j], ...]`.

    Parameters
    ----------
    src, dst : ndarray
        C-contiguous, shaped (planes, D0, ..., Dk-1, channels) (k <= 3), of the same type or
        `dst` float32.
    indices : list of int32 arrays
        The source position of each output position, per spatial axis (within range).
    """
    cdef Job job
    cdef const int32_t[::1] ix
    cdef int k = len(indices)
    cdef int a
    if not (isinstance(src, np.ndarray) and isinstance(dst, np.ndarray)):
        raise TypeError("src and dst must be numpy arrays")
    shape = src.shape
    if k < 1 or k > MAX_PASSES or len(shape) != k + 2:
        raise ValueError(f"1 to {MAX_PASSES} spatial axes are supported")
    if not (src.flags.c_contiguous and dst.flags.c_contiguous):
        raise ValueError("src and dst must be C-contiguous")
    job.n_passes = 0
    job.planes = shape[0]
    job.channels = shape[len(shape) - 1]
    keep = []
    cdef Py_ssize_t size = job.planes * job.channels
    for a in range(MAX_PASSES):
        # missing leading axes have extent 1 and index 0
        b = a - (MAX_PASSES - k)
        ix = indices[b] if b >= 0 else _ZERO
        keep.append(ix)
        job.nn_in[a] = shape[1 + b] if b >= 0 else 1
        job.nn_out[a] = ix.shape[0]
        job.nn_index[a] = &ix[0] if ix.shape[0] else NULL
        size *= ix.shape[0]
    if dst.size != size:
        raise ValueError(f"dst has {dst.size} elements, the resampling produces {size}")
    run(src, dst, &job)


def axis_filter(const float[::1] table, float radius, bint nearest, int n_in, int n_out,
                float lo, float hi, bint antialias):
    """The filter of one axis: (starts int32 (n_out,), weights float32 (n_out, support),
    identity), computed as `dali.ops._resampling.axis_filter` describes.

    Parameters
    ----------
    table : float32 array
        Kernel samples followed by two zeros (unused for nearest neighbour).
    radius : float
        Kernel radius in pixels at scale 1.
    nearest : bool
        Nearest neighbour (one tap of weight 1).
    n_in, n_out : int
        Input and output extents (both > 0).
    lo, hi : float
        The source region (as float32); hi < lo mirrors.
    antialias : bool
    """
    if n_in <= 0 or n_out <= 0:
        raise ValueError("n_in and n_out must be positive")
    cdef cnp.ndarray starts = np.empty(n_out, np.int32)
    cdef cnp.ndarray weights
    cdef int32_t* sp = <int32_t*>cnp.PyArray_DATA(starts)
    if nearest:
        weights = np.ones((n_out, 1), np.float32)
        with nogil:
            dali_rs_filter_nn(n_in, n_out, lo, hi, sp)
        return starts, weights, bool(dali_rs_filter_identity(
            sp, <float*>cnp.PyArray_DATA(weights), n_out, 1, n_in))
    cdef int samples = table.shape[0] - 2
    if samples < 2:
        raise ValueError("the kernel table needs at least two samples and two zeros")
    cdef float scale, step, origin
    cdef int support = dali_rs_filter_shape(samples, radius, n_out, lo, hi, antialias, &scale,
                                            &step, &origin)
    cdef int width = support if support < n_in else n_in
    cdef cnp.ndarray first = np.empty(n_out, np.int64)
    cdef cnp.ndarray raw = np.empty((n_out, support), np.float32)
    weights = np.empty((n_out, width), np.float32)
    cdef int64_t* fp = <int64_t*>cnp.PyArray_DATA(first)
    cdef float* rp = <float*>cnp.PyArray_DATA(raw)
    cdef float* wp = <float*>cnp.PyArray_DATA(weights)
    cdef int identity
    with nogil:
        dali_rs_filter_taps(&table[0], samples, n_out, support, scale, step, origin, fp, rp)
        dali_rs_filter_fold(fp, rp, n_out, support, n_in, sp, wp)
        identity = dali_rs_filter_identity(sp, wp, n_out, width, n_in)
    return starts, weights, bool(identity)


def pass_order(in_sizes, out_sizes, supports, identity):
    """The order in which to resample the spatial axes (a list of axis indices, identity axes
    left out): resample_filter.h's `dali_rs_pass_order`, the batch engine's choice.

    Parameters
    ----------
    in_sizes, out_sizes : sequences of int
        Extents of the (up to 3) spatial axes before and after resampling.
    supports : sequence of int
        Taps per output of each axis's filter.
    identity : sequence of bool
        Whether each axis's filter is the identity.
    """
    cdef int n = len(in_sizes), a
    cdef int64_t ins[DALI_RS_MAX_AXES]
    cdef int64_t outs[DALI_RS_MAX_AXES]
    cdef int sup[DALI_RS_MAX_AXES]
    cdef int ident[DALI_RS_MAX_AXES]
    cdef int order[DALI_RS_MAX_AXES]
    if not 1 <= n <= DALI_RS_MAX_AXES or len(out_sizes) != n or len(supports) != n or \
            len(identity) != n:
        raise ValueError(f"1 to {DALI_RS_MAX_AXES} axes, each with all four values")
    for a in range(n):
        ins[a], outs[a], sup[a], ident[a] = in_sizes[a], out_sizes[a], supports[a], identity[a]
    cdef int m = dali_rs_pass_order(n, ins, outs, sup, ident, order)
    return [order[a] for a in range(m)]


def input_span(const int32_t[::1] starts, int width, bint identity, int64_t lo, int64_t hi):
    """The input positions (first, last) that outputs [lo, hi) of a filter (`starts`, `width`
    taps, `identity`) read: resample_filter.h's `dali_rs_input_span`."""
    cdef int64_t first, last
    if hi > lo and not identity and not (0 <= lo and hi <= starts.shape[0]):
        raise ValueError("the window lies outside the filter's outputs")
    dali_rs_input_span(&starts[0] if starts.shape[0] else NULL, width, identity, lo, hi,
                       &first, &last)
    return first, last


def even_end(int64_t columns, int64_t channels, int64_t x0, int64_t x1):
    """The rounding boundary of a last pass along rows writing columns [x0, x1) of rows of
    `columns` positions (see `resample`): resample_filter.h's `dali_rs_even_end`."""
    return dali_rs_even_end(columns, channels, x0, x1)
