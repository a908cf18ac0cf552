"""The fused normalize-and-convert pass of fn.crop_mirror_normalize.

`normalize(src, dst, channel_axis, mean, mul)` writes `(src - mean[c]) * mul[c]` for every
element of `src` into the element of `dst` at the same index, where `c` is the element's index
along `channel_axis`.  Both arrays may have any strides (negative ones too), so the caller
expresses cropping, mirroring and the layout change as numpy views and this pass reads the
input once, in its memory order, and writes the output directly.  Arithmetic is float32;
integer outputs round half away from zero and saturate (NaN gives 0); float16 outputs round
to nearest even and overflow to infinity (numpy's `astype`).  Runs without the GIL.
`normalize_batch(pool, jobs, channel_axis)` does the same for a batch of such jobs on a thread
pool: largest samples first, large ones split into tiles along their first axis;
`normalize_windows` describes the jobs of a contiguous batch itself (windows, mirroring and the
layout change as strides), so that small samples cost no Python view each.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t

from dali._ext.kernels.convert cimport dali_float_to_half, half
from dali._ext.kernels.odometer cimport next_index
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef extern from "cmn_kernels.h" nogil:
    void dali_cmn_u8x3(const uint8_t* s, int dir, float* d0, float* d1, float* d2,
                       Py_ssize_t n, const float* m, const float* f) noexcept nogil

ctypedef fused src_t:
    uint8_t
    int16_t
    uint16_t
    int32_t
    float

ctypedef fused dst_t:
    uint8_t
    int8_t
    half
    float

cdef enum:
    MAX_DIMS = 8
    TILE_ELEMENTS = 1 << 18     # a sample larger than this is split into tiles of about it
    NS_PER_ELEMENT = 1          # cost estimate for the pool (a memory-bound pass)


cdef struct Job:
    const char* src
    char* dst
    int sk, dk, ndim, cdim
    Py_ssize_t shape[MAX_DIMS]
    Py_ssize_t sstr[MAX_DIMS]
    Py_ssize_t dstr[MAX_DIMS]
    const float* mean
    const float* mul


cdef inline void _store(dst_t* out, float v) noexcept nogil:
    """float32 as it is; float16 rounded to nearest even (overflow to inf, numpy's astype);
    integers rounded half away from zero and saturated (NaN -> 0): clamped first, so that the
    truncating conversion is exact, then corrected by the remainder."""
    cdef int r
    cdef float rem
    if dst_t is float:
        out[0] = v
    elif dst_t is half:
        out[0].bits = dali_float_to_half(v)
    else:
        # Comparisons, not fminf/fmaxf: those are library calls without -ffast-math.
        if dst_t is uint8_t:
            if not (v > 0):             # also NaN
                v = 0
            elif v > 255:
                v = 255
        else:
            if v != v:
                v = 0
            elif v < -128:
                v = -128
            elif v > 127:
                v = 127
        r = <int>v
        rem = v - r
        r += (rem >= 0.5) - (rem <= -0.5)
        out[0] = <dst_t>r


cdef inline void _line(const src_t* s, Py_ssize_t ss, dst_t* d, Py_ssize_t ds, Py_ssize_t n,
                       float m, float f) noexcept nogil:
    """n elements with element strides ss, ds; the unit-stride cases are written out so that
    the compiler can vectorize them."""
    cdef Py_ssize_t k
    if ds == 1:
        if ss == 1:
            for k in range(n):
                _store(&d[k], (<float>s[k] - m) * f)
        else:
            for k in range(n):
                _store(&d[k], (<float>s[k * ss] - m) * f)
    elif ds == -1:
        for k in range(n):
            _store(&d[-k], (<float>s[k * ss] - m) * f)
    else:
        for k in range(n):
            _store(&d[k * ds], (<float>s[k * ss] - m) * f)


cdef inline void _pixels3(const src_t* s, Py_ssize_t ss, Py_ssize_t sc, dst_t* d,
                          Py_ssize_t ds, Py_ssize_t dc, Py_ssize_t n, const float* m,
                          const float* f) noexcept nogil:
    """n three-channel pixels: one pass over the source row, three output streams.  Packed
    pixels (forwards or mirrored) into unit-stride planes get loops with constant strides,
    which the compiler vectorizes."""
    cdef Py_ssize_t k
    cdef dst_t* d0 = d
    cdef dst_t* d1 = d + dc
    cdef dst_t* d2 = d + 2 * dc
    cdef float m0 = m[0], m1 = m[1], m2 = m[2], f0 = f[0], f1 = f[1], f2 = f[2]
    if src_t is uint8_t and dst_t is float and sc == 1 and ds == 1 and (ss == 3 or ss == -3):
        dali_cmn_u8x3(s, 1 if ss == 3 else -1, d0, d1, d2, n, m, f)
    elif sc == 1 and ds == 1 and ss == 3:
        for k in range(n):
            _store(&d0[k], (<float>s[3 * k] - m0) * f0)
            _store(&d1[k], (<float>s[3 * k + 1] - m1) * f1)
            _store(&d2[k], (<float>s[3 * k + 2] - m2) * f2)
    elif sc == 1 and ds == 1 and ss == -3:
        for k in range(n):
            _store(&d0[k], (<float>s[-3 * k] - m0) * f0)
            _store(&d1[k], (<float>s[1 - 3 * k] - m1) * f1)
            _store(&d2[k], (<float>s[2 - 3 * k] - m2) * f2)
    else:
        for k in range(n):
            _store(&d0[k * ds], (<float>s[k * ss] - m0) * f0)
            _store(&d1[k * ds], (<float>s[k * ss + sc] - m1) * f1)
            _store(&d2[k * ds], (<float>s[k * ss + 2 * sc] - m2) * f2)


cdef void _normalize(const char* src, char* dst, int ndim, const Py_ssize_t* shape,
                     const Py_ssize_t* sstr, const Py_ssize_t* dstr, int cdim,
                     const float* mean, const float* mul, src_t* s_tag,
                     dst_t* d_tag) noexcept nogil:
    """Odometer over the outer dimensions, a loop over the second innermost one and `_line`s
    along the innermost (or, when the channels are innermost, one line per channel along the
    second innermost: reads stay within a cached row, writes are sequential)."""
    cdef Py_ssize_t idx[MAX_DIMS]
    cdef Py_ssize_t n_outer = 1, _row, i, c = 0
    cdef int d, outer = ndim - 2
    cdef Py_ssize_t ni = shape[ndim - 2], nj = shape[ndim - 1]
    cdef Py_ssize_t es = sizeof(src_t), ed = sizeof(dst_t)
    cdef Py_ssize_t si = sstr[ndim - 2] // es, sj = sstr[ndim - 1] // es
    cdef Py_ssize_t di = dstr[ndim - 2] // ed, dj = dstr[ndim - 1] // ed
    cdef const src_t* sp
    cdef dst_t* dp
    for d in range(outer):
        n_outer *= shape[d]
        idx[d] = 0
    for _row in range(n_outer):
        sp = <const src_t*>src
        dp = <dst_t*>dst
        for d in range(outer):
            sp = <const src_t*>(<const char*>sp + idx[d] * sstr[d])
            dp = <dst_t*>(<char*>dp + idx[d] * dstr[d])
            if d == cdim:
                c = idx[d]
        if cdim == ndim - 1 and nj == 3:
            _pixels3(sp, si, sj, dp, di, dj, ni, mean, mul)
        elif cdim == ndim - 1:
            for c in range(nj):
                _line(sp + c * sj, si, dp + c * dj, di, ni, mean[c], mul[c])
        elif cdim == ndim - 2:
            for i in range(ni):
                _line(sp + i * si, sj, dp + i * di, dj, nj, mean[i], mul[i])
        else:
            for i in range(ni):
                _line(sp + i * si, sj, dp + i * di, dj, nj, mean[c], mul[c])
        next_index(idx, outer, shape)


cdef void _typed_out(src_t* tag, const char* s, char* o, int dk, int ndim,
                     const Py_ssize_t* shape, const Py_ssize_t* sstr, const Py_ssize_t* dstr,
                     int cdim, const float* mean, const float* mul) noexcept nogil:
    if dk == cnp.NPY_FLOAT32:
        _normalize(s, o, ndim, shape, sstr, dstr, cdim, mean, mul, tag, <float*>NULL)
    elif dk == cnp.NPY_FLOAT16:
        _normalize(s, o, ndim, shape, sstr, dstr, cdim, mean, mul, tag, <half*>NULL)
    elif dk == cnp.NPY_UINT8:
        _normalize(s, o, ndim, shape, sstr, dstr, cdim, mean, mul, tag, <uint8_t*>NULL)
    else:
        _normalize(s, o, ndim, shape, sstr, dstr, cdim, mean, mul, tag, <int8_t*>NULL)


cdef void _dispatch(const char* s, char* o, int sk, int dk, int ndim, const Py_ssize_t* shape,
                    const Py_ssize_t* sstr, const Py_ssize_t* dstr, int cdim,
                    const float* mean, const float* mul) noexcept nogil:
    if sk == cnp.NPY_UINT8:
        _typed_out(<uint8_t*>NULL, s, o, dk, ndim, shape, sstr, dstr, cdim, mean, mul)
    elif sk == cnp.NPY_INT16:
        _typed_out(<int16_t*>NULL, s, o, dk, ndim, shape, sstr, dstr, cdim, mean, mul)
    elif sk == cnp.NPY_UINT16:
        _typed_out(<uint16_t*>NULL, s, o, dk, ndim, shape, sstr, dstr, cdim, mean, mul)
    elif sk == cnp.NPY_INT32:
        _typed_out(<int32_t*>NULL, s, o, dk, ndim, shape, sstr, dstr, cdim, mean, mul)
    else:
        _typed_out(<float*>NULL, s, o, dk, ndim, shape, sstr, dstr, cdim, mean, mul)


_SRC = {np.dtype(t) for t in (np.uint8, np.int16, np.uint16, np.int32, np.float32)}
_DST = {np.dtype(t) for t in (np.uint8, np.int8, np.float16, np.float32)}


cdef object _describe(src, dst, int channel_axis, mean, mul, Job* job):
    """Check one sample's arguments and fill `job`; returns what must stay alive while it runs
    (None for an empty sample: job.ndim is then 0)."""
    cdef cnp.ndarray sa = src
    cdef cnp.ndarray da = dst
    cdef int ndim = sa.ndim, d
    if src.dtype not in _SRC or dst.dtype not in _DST:
        raise TypeError(f"unsupported types {src.dtype} -> {dst.dtype}")
    if dst.ndim != ndim or tuple(dst.shape) != tuple(src.shape):
        raise ValueError("src and dst must have the same shape")
    if not 0 <= channel_axis < ndim:
        raise ValueError("channel_axis out of range")
    m = np.ascontiguousarray(mean, dtype=np.float32)
    f = np.ascontiguousarray(mul, dtype=np.float32)
    if m.shape[0] < src.shape[channel_axis] or f.shape[0] < src.shape[channel_axis]:
        raise ValueError("mean and mul need one value per channel")
    job.ndim = 0
    if src.size == 0:
        return None
    if any(st % src.itemsize for st in src.strides):
        sa = np.ascontiguousarray(src)
    if any(st % dst.itemsize for st in dst.strides):
        raise ValueError("dst strides must be multiples of its item size")
    # Pad to at least two dimensions with leading unit extents.
    cdef int lead = 2 - ndim if ndim < 2 else 0
    if ndim + lead > MAX_DIMS:
        raise ValueError(f"at most {MAX_DIMS} dimensions are supported")
    for d in range(lead):
        job.shape[d] = 1
        job.sstr[d] = 0
        job.dstr[d] = 0
    for d in range(ndim):
        job.shape[d + lead] = sa.shape[d]
        job.sstr[d + lead] = sa.strides[d]
        job.dstr[d + lead] = da.strides[d]
    job.src = <const char*>cnp.PyArray_DATA(sa)
    job.dst = <char*>cnp.PyArray_DATA(da)
    job.sk = cnp.PyArray_TYPE(sa)
    job.dk = cnp.PyArray_TYPE(da)
    job.ndim = ndim + lead
    job.cdim = channel_axis + lead
    job.mean = <const float*>cnp.PyArray_DATA(m)
    job.mul = <const float*>cnp.PyArray_DATA(f)
    return sa, m, f


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* job = &(<Job*>ctx)[i]
    if job.ndim:
        _dispatch(job.src, job.dst, job.sk, job.dk, job.ndim, job.shape, job.sstr, job.dstr,
                  job.cdim, job.mean, job.mul)


def normalize(src, dst, int channel_axis, mean, mul):
    """dst[...] = (src - mean[c]) * mul[c] converted to dst's type (see the module docstring).

    Parameters
    ----------
    src : ndarray of uint8, int16, uint16, int32 or float32, any strides
    dst : ndarray of uint8, int8, float16 or float32, the shape of `src`, any strides
    channel_axis : int
        The axis whose index selects `mean`/`mul` entries.
    mean, mul : float32 arrays with one value per index along `channel_axis`
    """
    cdef Job job
    keep = _describe(src, dst, channel_axis, mean, mul, &job)
    with nogil:
        _run_job(&job, 0)
    del keep


def normalize_batch(ThreadPool pool, list jobs, int channel_axis):
    """`normalize(src, dst, channel_axis, mean, mul)` for every (src, dst, mean, mul) of
    `jobs`, on `pool` (or the caller when it is None), largest tiles first.  Every job is
    checked before any runs; tiles never split the channel axis."""
    cdef Py_ssize_t n = len(jobs), i
    keep = []
    cdef Job* one = <Job*>job_array(n, sizeof(Job), keep)
    for i in range(n):
        src, dst, mean, mul = jobs[i]
        keep.append(_describe(src, dst, channel_axis, mean, mul, &one[i]))
    _run_tiled(pool, one, n, keep)


def normalize_windows(ThreadPool pool, BatchStorage src, BatchStorage dst,
                      const int64_t[:, ::1] anchors, const int64_t[:, ::1] shapes,
                      const uint8_t[::1] mirror, perm, int channel_axis, int mirror_axis,
                      const float[:, ::1] mean, const float[:, ::1] mul):
    """The whole batch from contiguous storages without a view per sample: output sample i
    (in the axis order `perm` of the input's) is the window at `anchors[i]` of extents
    `shapes[i]` of input sample i, flipped along `mirror_axis` where `mirror[i]`, normalized
    with row i of `mean`/`mul` (or their only row), as `normalize` computes it.

    Returns False, before anything runs, when a window is not inside its sample (the caller
    then pads through `normalize_batch`).
    """
    cdef Py_ssize_t n = src.num_samples, i, d, es, ed, stride, offset
    cdef int ndim = src.ndim, lead = 2 - ndim if ndim < 2 else 0
    cdef Py_ssize_t ostr[MAX_DIMS]
    cdef int p[MAX_DIMS]
    cdef Job* job
    if src.base is None or dst.base is None:
        raise ValueError("src and dst must be contiguous batches")
    if np.dtype(src.dtype) not in _SRC or np.dtype(dst.dtype) not in _DST:
        raise TypeError(f"unsupported types {src.dtype} -> {dst.dtype}")
    if dst.num_samples != n or dst.ndim != ndim or len(perm) != ndim or ndim + lead > MAX_DIMS:
        raise ValueError("dst needs the samples and dimensions of src")
    if anchors.shape[0] != n or shapes.shape[0] != n or mirror.shape[0] != n or \
            (n and (anchors.shape[1] != ndim or shapes.shape[1] != ndim)):
        raise ValueError("anchors, shapes and mirror need one row per sample")
    if mean.shape[0] not in (1, n) or mul.shape[0] != mean.shape[0]:
        raise ValueError("mean and mul need one row, or one per sample")
    if not 0 <= channel_axis < ndim or not 0 <= mirror_axis < ndim:
        raise ValueError("channel_axis or mirror_axis out of range")
    cdef const int64_t[:, ::1] ins = src.shapes
    cdef const int64_t[:, ::1] outs = dst.shapes
    cdef const int64_t[::1] soff = src.offsets
    cdef const int64_t[::1] doff = dst.offsets
    for d in range(ndim):
        p[d] = perm[d]
    for i in range(n):
        if mean.shape[1] < shapes[i, channel_axis] or mul.shape[1] < shapes[i, channel_axis]:
            raise ValueError("mean and mul need one value per channel")
        for d in range(ndim):
            if outs[i, d] != shapes[i, p[d]]:
                raise ValueError("dst samples must have the window's extents in `perm` order")
            if anchors[i, d] < 0 or anchors[i, d] + shapes[i, d] > ins[i, d]:
                return False
    keep = []
    cdef Job* one = <Job*>job_array(n, sizeof(Job), keep)
    es, ed = np.dtype(src.dtype).itemsize, np.dtype(dst.dtype).itemsize
    cdef int sk = np.dtype(src.dtype).num, dk = np.dtype(dst.dtype).num
    for i in range(n):
        job = &one[i]
        job.ndim = 0
        stride = ed
        for d in range(ndim - 1, -1, -1):
            ostr[d] = stride
            stride *= shapes[i, p[d]]
        if stride == 0:
            continue
        for d in range(lead):
            job.shape[d], job.sstr[d], job.dstr[d] = 1, 0, 0
        for d in range(ndim):
            job.dstr[p[d] + lead] = ostr[d]
        stride, offset = es, 0
        for d in range(ndim - 1, -1, -1):
            job.shape[d + lead] = shapes[i, d]
            job.sstr[d + lead] = stride
            offset += anchors[i, d] * stride
            if d == mirror_axis and mirror[i]:
                offset += (shapes[i, d] - 1) * stride
                job.sstr[d + lead] = -stride
            stride *= ins[i, d]
        job.src = <const char*>src.data + soff[i] + offset
        job.dst = <char*>dst.data + doff[i]
        job.sk, job.dk = sk, dk
        job.ndim = ndim + lead
        job.cdim = channel_axis + lead
        job.mean = &mean[i if mean.shape[0] > 1 else 0, 0]
        job.mul = &mul[i if mul.shape[0] > 1 else 0, 0]
    _run_tiled(pool, one, n, keep)
    return True


cdef _run_tiled(ThreadPool pool, Job* one, Py_ssize_t n, list keep):
    """Run the described jobs on `pool`, largest first, a large one split into tiles of about
    TILE_ELEMENTS along its first axis (unless that is the channel axis)."""
    cdef Py_ssize_t i, k, t, count = 0, rows, step, r0
    cdef int d
    cdef Job* job
    sizes = np.empty((n, 3), np.int64)      # elements, tiles, rows of the first axis, per job
    cdef int64_t[:, ::1] sz = sizes
    for i in range(n):
        sz[i, 0] = 0
        if one[i].ndim:
            sz[i, 0] = 1
            for d in range(one[i].ndim):
                sz[i, 0] *= one[i].shape[d]
        rows = one[i].shape[0] if one[i].ndim and one[i].cdim != 0 else 1
        t = min(rows, max(1, sz[i, 0] // TILE_ELEMENTS))
        sz[i, 1], sz[i, 2] = t, rows
        count += t
    cdef Job* tiles = <Job*>job_array(count, sizeof(Job), keep)
    weights = np.empty(count, np.int64)
    cdef int64_t[::1] wv = weights
    k = 0
    for i in range(n):
        t, rows = sz[i, 1], sz[i, 2]
        step = (rows + t - 1) // t
        r0 = 0
        while r0 < rows:        # (a range of a variable step would be a Python range)
            tiles[k] = one[i]
            if t > 1:
                job = &tiles[k]
                job.src = job.src + r0 * job.sstr[0]
                job.dst = job.dst + r0 * job.dstr[0]
                job.shape[0] = min(step, rows - r0)
            wv[k] = sz[i, 0] // t
            k += 1
            r0 += step
    run_largest_first(pool, _run_job, tiles, weights, NS_PER_ELEMENT)
